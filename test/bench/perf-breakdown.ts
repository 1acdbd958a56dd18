/**
 * Where the whole machine's CPU goes under load, from a system-wide `perf` recording: the share of
 * the server process (its JavaScript, V8's garbage collector and compiler on the main thread and
 * on V8's background threads, the kernel), of Postgres (planning, execution by kind, commit), of
 * the load generator, and idle. A sampled CPU profile of the server alone cannot show this: on a
 * machine shared with the database it charges the time the server waits for a core to whatever
 * it was doing, and it cannot see V8's background threads or Postgres.
 *
 *   npm run bench -- --concurrency --no-worker --clients 10 --window 20 --workspaces one \
 *     "--node-options=--perf-basic-prof --max-old-space-size=256 --max-semi-space-size=16" &
 *   # once the window has started (the bench prints "== one workspace, 10 client(s)"), as root:
 *   perf record -a -g -o /tmp/perf.data sleep 10
 *   npm run bench:perf -- --data /tmp/perf.data --server-pid <pid of `engram start`> [--ops <ops/s in the window>]
 *
 * `--perf-basic-prof` makes the server write /tmp/perf-<pid>.map, so perf can tell its JavaScript
 * frames from native code. With `--ops` (the window's throughput), each share is also given as CPU milliseconds
 * per operation. Needs Linux `perf` with permission to record every CPU.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import readline from 'node:readline';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    data: { type: 'string' },
    'server-pid': { type: 'string' },
    ops: { type: 'string' },
    // perf's default sampling frequency for cpu-clock.
    hz: { type: 'string', default: '4000' },
  },
});
if (!args.data || !args['server-pid']) throw new Error('--data <perf.data> and --server-pid <pid> are required (see the comment at the top of test/bench/perf-breakdown.ts)');
const serverPid = Number(args['server-pid']);
const opsPerSecond = args.ops ? Number(args.ops) : undefined;

/** One sample: who ran, and its stack from the leaf up ("symbol (dso)"). */
interface Sample {
  comm: string;
  pid: number;
  tid: number;
  frames: string[];
}

const GC = /v8::internal::(Heap::|Scavenger|MarkCompact|ConcurrentMarking|MarkingVisitor|MinorMarkSweep|Sweeper|IncrementalMarking|PointersUpdating|Evacuat|ArrayBufferSweeper|MemoryAllocator|RememberedSet|GCTracer|ScavengeVisitor)/;
const COMPILER = /v8::internal::(compiler::|maglev::|baseline::|Compiler::|OptimizingCompileDispatcher|Parser|Scanner|interpreter::BytecodeGenerator)|turboshaft/;

/**
 * The server by thread and by what V8 or the kernel was doing. JavaScript is not split further:
 * V8 moves and frees compiled code, so the addresses in /tmp/perf-<pid>.map are reused and perf
 * names a JavaScript frame after whichever function last lived there (`npm run bench:layers` with
 * `--cpu-prof` splits a call's JavaScript instead).
 */
function serverCategory(sample: Sample): string {
  const main = sample.tid === sample.pid;
  const where = main ? 'main thread' : 'background threads';
  if (sample.frames.some((f) => GC.test(f))) return `V8 garbage collector (${where})`;
  if (sample.frames.some((f) => COMPILER.test(f))) return `V8 compiler (${where})`;
  if (!main) return 'other background work (libuv pool, V8 platform)';
  const leaf = sample.frames[0] ?? '';
  if (leaf.includes('[kernel.kallsyms]')) return 'kernel (syscalls: sockets, memory)';
  if (sample.frames.some((f) => f.startsWith('JS:') || f.startsWith('Builtins_'))) return 'JavaScript (compiled code, V8 builtins and runtime)';
  return 'native (Node and libuv, no JavaScript on the stack)';
}

/** Postgres by what the backend is doing: statics show as [unknown], so named callers decide. */
function postgresCategory(sample: Sample): string {
  const stack = sample.frames.join(' ');
  if (/standard_planner|pg_plan_query/.test(stack)) return 'planning';
  if (/CommitTransaction|XLogFlush/.test(stack)) return 'commit (WAL flush, end of transaction)';
  if (/standard_ExecutorStart|ExecInitNode/.test(stack)) return 'executor start';
  if (/standard_ExecutorRun|ExecScan|PortalRun/.test(stack)) {
    if (/hnswinsert/.test(stack)) return 'execution: insert, HNSW index';
    if (/gininsert|ginHeapTupleFastInsert/.test(stack)) return 'execution: insert, GIN index';
    if (/btinsert/.test(stack)) return 'execution: insert, b-tree indexes';
    if (/heap_insert|ExecInsert|heap_update|ExecUpdate/.test(stack)) return 'execution: insert/update, heap and other';
    if (/hnswgettuple/.test(stack)) return 'execution: read, HNSW scan';
    if (/gingetbitmap|BitmapHeap|tbm_|ts_rank|TS_execute|tsquery|to_tsvector/.test(stack)) return 'execution: read, full text (GIN, bitmap, rank)';
    if (/pglz_decompress|detoast/.test(stack)) return 'execution: read, detoasting';
    if (/OutputFunctionCall|printtup/.test(stack)) return 'execution: output of rows';
    return 'execution: other';
  }
  if (/exec_parse_message|raw_parser|parse_analyze|pg_analyze_and_rewrite/.test(stack)) return 'parse and analyze';
  if (sample.frames[0]?.includes('[kernel.kallsyms]')) return 'kernel (socket I/O, scheduling)';
  return 'protocol and other';
}

async function readSamples(file: string, onSample: (s: Sample) => void): Promise<void> {
  const perf = spawn('perf', ['script', '-i', file, '-F', 'comm,pid,tid,ip,sym,dso'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines = readline.createInterface({ input: perf.stdout, crlfDelay: Infinity });
  let current: Sample | undefined;
  for await (const line of lines) {
    if (line.trim() === '') {
      if (current) onSample(current);
      current = undefined;
      continue;
    }
    if (!/^\s/.test(line)) {
      // "postgres  7658/7658  " or "V8Worker  7626/7631  " (a comm may hold spaces).
      const m = /^(.*?)\s+(\d+)\/(\d+)\s*$/.exec(line);
      current = m ? { comm: m[1]!.trim(), pid: Number(m[2]), tid: Number(m[3]), frames: [] } : undefined;
      continue;
    }
    current?.frames.push(line.trim().replace(/^[0-9a-f]+ /, ''));
  }
  if (current) onSample(current);
  const code = await new Promise<number | null>((resolve) => perf.on('close', resolve));
  if (code !== 0) throw new Error(`perf script -i ${file} exited with ${code}: is perf installed, and is ${file} a perf recording?`);
}

const counts = { all: 0, server: new Map<string, number>(), postgres: new Map<string, number>(), processes: new Map<string, number>() };
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

await readSamples(args.data, (sample) => {
  counts.all++;
  if (sample.pid === serverPid) {
    add(counts.processes, 'Engram server');
    add(counts.server, serverCategory(sample));
  } else if (sample.comm === 'postgres') {
    add(counts.processes, 'Postgres');
    add(counts.postgres, postgresCategory(sample));
  } else if (sample.comm === 'swapper') add(counts.processes, 'idle');
  else if (sample.comm === 'WorkerThread' || sample.comm === 'MainThread' || sample.comm === 'node' || sample.comm === 'V8Worker') add(counts.processes, 'load generator (other Node processes)');
  else add(counts.processes, `other: ${sample.comm}`);
});

const seconds = counts.all / Number(args.hz) / os.availableParallelism();
const cores = (n: number) => n / Number(args.hz) / seconds;
const perOp = (n: number) => (opsPerSecond ? `${((cores(n) / opsPerSecond) * 1000).toFixed(3)} ms` : '');
const print = (line: string) => process.stdout.write(`${line}\n`);
const table = (title: string, map: Map<string, number>, total: number) => {
  print(`\n| ${title} | share | cores |${opsPerSecond ? ' CPU per op |' : ''}`);
  print(`| --- | ---: | ---: |${opsPerSecond ? ' ---: |' : ''}`);
  for (const [key, n] of [...map].sort((a, b) => b[1] - a[1])) {
    if (n / total < 0.005) continue;
    print(`| ${key} | ${((100 * n) / total).toFixed(1)}% | ${cores(n).toFixed(2)} |${opsPerSecond ? ` ${perOp(n)} |` : ''}`);
  }
};
print(`${counts.all} samples over ${seconds.toFixed(1)} s on ${os.availableParallelism()} cores (${args.data})`);
table('whole machine', counts.processes, counts.all);
table('Engram server', counts.server, [...counts.server.values()].reduce((a, b) => a + b, 0));
table('Postgres', counts.postgres, [...counts.postgres.values()].reduce((a, b) => a + b, 0));
