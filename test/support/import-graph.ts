/**
 * The static import graph of Engram's own source: which file imports (or re-exports) which, with
 * `@engram/<name>` resolved to that workspace's entry file. Dynamic `import()` is left out: it is
 * how a module loads another lazily, and cannot form a circle at load time. Type-only imports are
 * kept: a circle of types still ties two files together.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE = /\.(ts|tsx)$/;

/** Every `.ts`/`.tsx` file under `dir`, recursively (declaration files left out). */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** `@engram/<name>` → the workspace's entry file, from each package.json's `exports["."]`. */
function workspaceEntries(): Map<string, string> {
  const entries = new Map<string, string>();
  for (const group of ['packages', 'apps']) {
    for (const name of fs.readdirSync(path.join(ROOT, group))) {
      const manifest = path.join(ROOT, group, name, 'package.json');
      if (!fs.existsSync(manifest)) continue;
      const pkg = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name: string; exports?: Record<string, string> };
      const entry = pkg.exports?.['.'];
      if (entry) entries.set(pkg.name, path.join(ROOT, group, name, entry));
    }
  }
  return entries;
}

/** The specifiers a file imports or re-exports statically. */
function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const found: string[] = [];
  for (const statement of source.statements) {
    if ((ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)) {
      found.push(statement.moduleSpecifier.text);
    }
  }
  return found;
}

function resolve(from: string, specifier: string, entries: Map<string, string>): string | undefined {
  if (entries.has(specifier)) return entries.get(specifier);
  if (!specifier.startsWith('.')) return undefined; // a dependency, not Engram's own code
  const base = path.resolve(path.dirname(from), specifier);
  return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((candidate) => SOURCE.test(candidate) && fs.existsSync(candidate));
}

/** The import graph of every source file under `dirs` (relative to the repository), keyed by path relative to it. */
export function importGraph(dirs: string[]): Map<string, string[]> {
  const entries = workspaceEntries();
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sourceFiles(path.join(ROOT, dir)))) {
    const targets = specifiersOf(file)
      .map((specifier) => resolve(file, specifier, entries))
      .filter((target): target is string => target !== undefined)
      .map((target) => path.relative(ROOT, target));
    graph.set(path.relative(ROOT, file), [...new Set(targets)]);
  }
  return graph;
}

/**
 * The circles in a graph: each group of files that import one another, directly or through
 * others (a strongly connected component of two or more files, or a file that imports itself),
 * given as one path around it that ends where it starts.
 */
export function importCircles(graph: Map<string, string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++]!;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) components.push(component);
      }
    }
  }
  return components.map((component) => pathAround(graph, new Set(component)));
}

/** One path from the component's first file (by name) back to itself, through the component only. */
function pathAround(graph: Map<string, string[]>, component: Set<string>): string[] {
  const start = [...component].sort()[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!component.has(to)) continue;
      if (to === start) {
        const trail: string[] = [];
        for (let at = node; at !== start; at = cameFrom.get(at)!) trail.unshift(at);
        return [start, ...trail, start];
      }
      if (!cameFrom.has(to) && to !== start) {
        cameFrom.set(to, node);
        queue.push(to);
      }
    }
  }
  return [...component];
}
