/**
 * What a statement is, from its text: whether it writes (refused while the disk is nearly full)
 * and whether it is schema work (migrations, index builds: allowed to take long).
 */

/** Leading keywords of statements that write rows, schema or maintenance data. */
const WRITES = new Set([
  'insert',
  'update',
  'delete',
  'merge',
  'create',
  'alter',
  'drop',
  'truncate',
  'copy',
  'grant',
  'revoke',
  'comment',
  'vacuum',
  'analyze',
  'cluster',
  'reindex',
  'refresh',
  'import',
  'reassign',
  'security',
  'do',
  'call',
]);

/** Leading keywords of schema work, which may rewrite a table or build an index. */
const SCHEMA_WORK = new Set(['create', 'alter', 'drop', 'vacuum', 'analyze', 'cluster', 'reindex', 'refresh']);

/** Skips leading white space, comments and parentheses, then takes the first word. */
const LEADING_WORD = /^(?:\s+|--[^\n]*(?:\n|$)|\/\*[\s\S]*?\*\/|\()*([a-z]+)/i;
const DATA_MODIFYING = /\b(?:insert|update|delete|merge)\b/i;

function firstWord(statement: string): string {
  return LEADING_WORD.exec(statement)?.[1]?.toLowerCase() ?? '';
}

/** Comments and quoted strings, which may hold any word ("-- the earlier side of an update"). */
const NOT_CODE = /--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g;

function writes(statement: string): boolean {
  const word = firstWord(statement);
  // `with ... insert/update/delete`: a data-modifying common table expression.
  return WRITES.has(word) || (word === 'with' && DATA_MODIFYING.test(statement.replace(NOT_CODE, ' ')));
}

/** Whether the text (one statement, or several separated by semicolons) may write. */
export function isWrite(sql: string): boolean {
  if (writes(sql)) return true;
  return sql.includes(';') && sql.split(';').some(writes);
}

/** Whether the text starts schema work (a migration step, an index build, a vacuum). */
export function isSchemaWork(sql: string): boolean {
  if (SCHEMA_WORK.has(firstWord(sql))) return true;
  return sql.includes(';') && sql.split(';').some((statement) => SCHEMA_WORK.has(firstWord(statement)));
}
