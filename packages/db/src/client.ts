/**
 * Temporary, for the merge: facts.ts, which another branch is reworking, imports from here. Once
 * it (and any file split from it) imports from database.ts, delete this file.
 */
export { queryRows, type Database } from './database.ts';
