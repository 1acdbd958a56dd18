import { createHash } from 'node:crypto';
import type { z } from 'zod';

type Json = Record<string, unknown>;

// Keywords that describe the whole value; the rest constrain one type and go with it.
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly', '$schema', '$id', '$comment']);

/**
 * A JSON Schema without type arrays: `{"type": ["string", "null"]}` becomes
 * `{"anyOf": [{"type": "string"}, {"type": "null"}]}`. Both mean the same, but some clients
 * (and the MCP Inspector's portability check) accept only a single type per schema.
 */
export function withoutTypeArrays(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutTypeArrays);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) out[key] = withoutTypeArrays(value);
  if (!Array.isArray(out.type)) return out;
  const types = out.type as string[];
  const outer: Json = {};
  const inner: Json = {};
  for (const [key, value] of Object.entries(out)) {
    if (key === 'type') continue;
    (ANNOTATIONS.has(key) ? outer : inner)[key] = value;
  }
  outer.anyOf = types.map((type) => (type === 'null' ? { type } : { type, ...inner }));
  return outer;
}

const wrapped = new WeakMap<object, unknown>();
const wrappedIdentified = new WeakMap<object, unknown>();

/** Values a schema just produced (see {@link parsedOutput}): validating them again is a no-op. */
const parsedByUs = new WeakMap<object, object>();

/**
 * Parses a tool's output with its schema, and remembers the result, so that the SDK's check of the
 * same structured content against the same (portable) schema, moments later, does not parse it a
 * second time: a query's ten results took two full parses per call.
 */
export function parsedOutput<T extends z.ZodType>(schema: T, output: unknown): z.output<T> {
  const parsed = schema.parse(output);
  if (typeof parsed === 'object' && parsed !== null) parsedByUs.set(parsed, schema);
  return parsed;
}

/**
 * A schema with an `$id` naming its content. The MCP SDK clients (TypeScript, 1.x and 2.x) compile
 * every tool's output schema into a validator on each `tools/list`, unless the schema has an
 * `$id` they have compiled before: about 6 ms of a 7 ms `tools/list`, every time an agent lists
 * the tools. The id is a digest of the schema, so a changed schema is a new id (never a stale
 * validator), and the same schema from any Engram server is one.
 */
function identified(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || '$id' in schema) return schema;
  const digest = createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 32);
  const { $schema, ...rest } = schema as Json;
  return { ...($schema === undefined ? {} : { $schema }), $id: `urn:engram:schema:${digest}`, ...rest };
}

/**
 * The same zod schema for validation, with a portable JSON Schema for `tools/list` (the SDK reads
 * the Standard Schema `jsonSchema` converters); with `identified`, named by its content (for
 * output schemas, which clients compile; not for input schemas, which models read). The
 * conversion is made once per schema and target: a server is built per request, and converting
 * the output schema on every tool call was a measurable share of a call's time.
 */
export function portable<T extends z.ZodType>(schema: T, options: { identified?: boolean } = {}): T {
  const cache = options.identified ? wrappedIdentified : wrapped;
  const cached = cache.get(schema);
  if (cached) return cached as T;
  const standard = schema['~standard'];
  const converters = (standard as { jsonSchema?: { input(o: unknown): unknown; output(o: unknown): unknown } }).jsonSchema;
  if (!converters) return schema;
  const memo = new Map<string, unknown>();
  const convert = (direction: 'input' | 'output') => (target: unknown) => {
    const key = `${direction} ${JSON.stringify(target)}`;
    if (!memo.has(key)) {
      const json = withoutTypeArrays(converters[direction](target));
      memo.set(key, options.identified ? identified(json) : json);
    }
    return memo.get(key);
  };
  const jsonSchema = { input: convert('input'), output: convert('output') };
  // What parsedOutput just produced with this very schema is valid as it is.
  const validate = (value: unknown) =>
    typeof value === 'object' && value !== null && parsedByUs.get(value) === schema ? { value } : standard.validate(value);
  const facade = { ...standard, jsonSchema, validate };
  const proxy = new Proxy(schema, { get: (target, property, receiver) => (property === '~standard' ? facade : Reflect.get(target, property, receiver)) as unknown });
  cache.set(schema, proxy);
  return proxy;
}
