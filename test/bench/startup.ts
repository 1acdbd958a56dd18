/**
 * How long `npm start` takes to print its banner: on a fresh data directory (creates the embedded
 * database, migrates, provisions the default workspace) and on a warm one; and the server's RSS
 * five seconds after the banner (Linux: read from /proc for the `engram start` process under npm).
 *
 *   npm run bench:startup -- [runs=5]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cliEnv, startCli } from '../support/cli.ts';
import { fmt, median } from './stats.ts';

const runs = Number(process.argv[2] ?? 5);
const npmStart = ['npm', 'start', '--silent'];
const fresh: number[] = [];
const warm: number[] = [];
const freshRss: number[] = [];
const warmRss: number[] = [];
const SETTLE_MS = 5_000;

/** The process running `cli.ts start` among `pid` and its descendants. */
function serverPid(pid: number): number | undefined {
  const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (cmdline.includes('cli.ts\0start')) return pid;
  for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
    for (const child of fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(' ').filter(Boolean)) {
      const found = serverPid(Number(child));
      if (found) return found;
    }
  }
  return undefined;
}

/** The server's resident memory in MiB, after it has settled. */
async function settledRss(started: { child: { pid?: number } }): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const pid = serverPid(started.child.pid!);
  const kb = pid ? /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] : undefined;
  return kb ? Number(kb) / 1024 : Number.NaN;
}
const mib = (n: number) => `${Math.round(n)} MiB`;

for (let i = 0; i < runs; i++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-start-'));
  const env = cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' });
  try {
    const first = await startCli(env, 120_000, npmStart);
    fresh.push(first.readyMs);
    freshRss.push(await settledRss(first));
    await first.stop();
    const second = await startCli(env, 120_000, npmStart);
    warm.push(second.readyMs);
    warmRss.push(await settledRss(second));
    await second.stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stderr.write(`run ${i + 1}/${runs}: fresh ${fmt(fresh.at(-1)!)} (${mib(freshRss.at(-1)!)}), warm ${fmt(warm.at(-1)!)} (${mib(warmRss.at(-1)!)})\n`);
}

process.stdout.write(
  `npm start → banner, ${runs} runs (median): fresh data dir ${fmt(median(fresh))}, warm data dir ${fmt(median(warm))}\n` +
    `  fresh: ${fresh.map(fmt).join(', ')}\n  warm:  ${warm.map(fmt).join(', ')}\n` +
    `server RSS ${SETTLE_MS / 1000} s after the banner (median): fresh ${mib(median(freshRss))}, warm ${mib(median(warmRss))}\n`,
);
