import { parsedOutput, portable, withoutTypeArrays } from '@engram/mcp';
import { describe, expect, it, vi } from 'vitest';
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

  it('does not parse again what parsedOutput just produced with the same schema', () => {
    let parses = 0;
    const schema = z.object({ count: z.number().int() }).refine(() => ++parses > 0);
    const other = z.object({ count: z.number().int() });
    const validate = (s: z.ZodType, value: unknown) => portable(s, { identified: true })['~standard'].validate(value);
    const parsed = parsedOutput(schema, { count: 2, extra: 'dropped' });
    expect(parsed).toEqual({ count: 2 });
    expect(parses).toBe(1);
    // The SDK's check of that very value against that schema takes it as it is.
    expect(validate(schema, parsed)).toEqual({ value: parsed });
    expect(parses).toBe(1);
    // An equal copy, or the value against another schema, is validated in full.
    expect(validate(schema, { ...parsed })).toMatchObject({ value: { count: 2 } });
    expect(parses).toBe(2);
    expect(validate(other, parsed)).toMatchObject({ value: { count: 2 } });
    expect(validate(schema, { count: 1.5 })).toMatchObject({ issues: expect.any(Array) });
  });

  it('names an output schema by its content, so a client compiles its validator once, not on every tools/list', async () => {
    const { AjvJsonSchemaValidator } = await import('@modelcontextprotocol/client/validators/ajv');
    const jsonOf = (schema: z.ZodType, options?: { identified?: boolean }) =>
      portable(schema, options)['~standard'].jsonSchema.output({ target: 'draft-2020-12' });
    const first = z.object({ status: z.string(), count: z.number().int() });
    const same = z.object({ status: z.string(), count: z.number().int() });
    const other = z.object({ status: z.string(), count: z.number().int(), note: z.string() });
    const id = jsonOf(first, { identified: true }).$id;
    expect(id).toMatch(/^urn:engram:schema:[0-9a-f]{32}$/);
    // The same schema is the same id wherever it comes from; a changed schema is a new one.
    expect(jsonOf(same, { identified: true }).$id).toBe(id);
    expect(jsonOf(other, { identified: true }).$id).not.toBe(id);
    // Input schemas (which models read) are left as they were.
    expect(jsonOf(first)).not.toHaveProperty('$id');
    // The SDK client's validator compiles an id it has seen once (its Ajv engine, counted), and still validates.
    const validator = new AjvJsonSchemaValidator();
    const engine = (validator as unknown as { ajv: { compile: (schema: unknown) => unknown } }).ajv;
    expect(typeof engine?.compile).toBe('function');
    const compile = vi.spyOn(engine, 'compile');
    for (let i = 0; i < 3; i++) {
      const check = validator.getValidator(structuredClone(jsonOf(first, { identified: true })));
      expect(check({ status: 'ready', count: 2 }).valid).toBe(true);
      expect(check({ status: 'ready', count: 'two' }).valid).toBe(false);
    }
    expect(compile).toHaveBeenCalledTimes(1);
    // Without an id, every listing compiles again.
    for (let i = 0; i < 3; i++) validator.getValidator(structuredClone(jsonOf(first)));
    expect(compile).toHaveBeenCalledTimes(4);
  });
});
