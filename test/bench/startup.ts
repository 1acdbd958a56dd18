/**
 * How long `npm start` takes to print its banner: on a fresh data directory (creates the embedded
 * database, migrates, provisions the default workspace) and on a warm one.
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

for (let i = 0; i < runs; i++) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-bench-start-'));
  const env = cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' });
  try {
    const first = await startCli(env, 120_000, npmStart);
    fresh.push(first.readyMs);
    await first.stop();
    const second = await startCli(env, 120_000, npmStart);
    warm.push(second.readyMs);
    await second.stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  process.stderr.write(`run ${i + 1}/${runs}: fresh ${fmt(fresh.at(-1)!)}, warm ${fmt(warm.at(-1)!)}\n`);
}

process.stdout.write(
  `npm start → banner, ${runs} runs (median): fresh data dir ${fmt(median(fresh))}, warm data dir ${fmt(median(warm))}\n` +
    `  fresh: ${fresh.map(fmt).join(', ')}\n  warm:  ${warm.map(fmt).join(', ')}\n`,
);
