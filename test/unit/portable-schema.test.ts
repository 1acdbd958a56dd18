import { portable, withoutTypeArrays } from '@engram/mcp';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

describe('portable tool schemas', () => {
  it('turns type arrays into anyOf, keeping each constraint with its type and annotations outside', () => {
    expect(withoutTypeArrays({ type: 'object', properties: { at: { type: ['string', 'null'], description: 'when', minLength: 1 } } })).toEqual({
      type: 'object',
      properties: { at: { description: 'when', anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] } },
    });
  });

  it('gives the SDK a JSON Schema without type arrays while validating with the same zod schema', () => {
    const schema = z.object({ valid_until: z.string().nullable(), count: z.number().int() });
    const wrapped = portable(schema);
    const json = JSON.stringify(wrapped['~standard'].jsonSchema.output({ target: 'draft-2020-12' }));
    expect(JSON.stringify(z.toJSONSchema(schema))).toMatch(/"type":\[/);
    expect(json).not.toMatch(/"type":\[/);
    expect(json).toContain('"anyOf":[{"type":"string"},{"type":"null"}]');
    expect(wrapped.safeParse({ valid_until: null, count: 2 }).success).toBe(true);
    expect(wrapped['~standard'].validate({ valid_until: 3, count: 2 })).toMatchObject({ issues: expect.any(Array) });
  });
});
