/**
 * No import circles in Engram's own code: a circle makes load order decide what a module sees
 * (an import that is still `undefined` while its module loads), and ties files that should be
 * changed apart. Packages import downward (config ← db ← core ← mcp ← apps/server); inside a
 * package, files do too. ESLint's import/no-cycle is not used: eslint-plugin-import does not
 * support ESLint 10, and this walk of the TypeScript syntax tree takes well under a second.
 */
import { describe, expect, it } from 'vitest';
import { importCircles, importGraph } from '../support/import-graph.ts';

describe('import circles', () => {
  it('finds none in the packages and apps', () => {
    const graph = importGraph(['packages', 'apps']);
    // The walk saw the code: the db package's entry re-exports its files.
    expect(graph.get('packages/db/src/index.ts')).toContain('packages/db/src/database.ts');
    expect(importCircles(graph).map((circle) => circle.join(' → '))).toEqual([]);
  });

  it('reports a circle as a path around it, a file importing itself included, and nothing for a chain', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', []],
      ['f.ts', ['f.ts']],
    ]);
    expect(importCircles(graph).sort()).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['f.ts', 'f.ts'],
    ]);
    expect(importCircles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });
});
