import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
export const CLI = path.join(REPO_ROOT, 'apps/server/src/cli.ts');

/** A minimal environment: nothing from the developer's shell leaks into the CLI under test. */
export function cliEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...extra };
}

/** What a finished process printed, and how it exited. */
export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `engram <args>` to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return runScript(CLI, args, env);
}

/** Runs a Node script with this Node, from the repository root, to completion (no stdin). */
export function runScript(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A started `engram start` process and what its banner said. */
export interface StartedCli {
  child: ChildProcessWithoutNullStreams;
  banner: string;
  mcpUrl: string;
  dashboardUrl: string;
  ownerToken: string | undefined;
  /** Milliseconds from spawn to the banner. */
  readyMs: number;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Spawns `engram start` (or another command that runs it, e.g. `npm start`) and resolves once the
 * banner is printed.
 */
export function startCli(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  command: string[] = [process.execPath, CLI, 'start'],
): Promise<StartedCli> {
  const started = performance.now();
  const [executable, ...args] = command;
  const child = spawn(executable!, args, { env, cwd: REPO_ROOT, detached: command[0] !== process.execPath });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`engram start printed no banner in ${timeoutMs} ms.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`engram start exited with ${code}.\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const mcp = /MCP URL\s+(\S+)/.exec(stdout);
      const dashboard = /Dashboard URL\s+(\S+)/.exec(stdout);
      // The banner ends with a blank line after its last hint; a log line may follow it in the
      // same chunk (the start's first warning), so the end is looked for, not expected last.
      const end = /\n(?: {4}claude mcp add [^\n]*| {2}Create a workspace: [^\n]*)\n\n/.exec(stdout);
      if (mcp && dashboard && end) {
        clearTimeout(timer);
        resolve({
          child,
          banner: stdout.slice(0, end.index + end[0].length),
          mcpUrl: mcp[1]!,
          dashboardUrl: dashboard[1]!,
          ownerToken: /Owner token\s+(\S+)/.exec(stdout)?.[1],
          readyMs: performance.now() - started,
          stop: (signal = 'SIGTERM') => {
            // A wrapper such as `npm start` runs in its own process group: signal all of it.
            if (child.spawnargs[0] !== process.execPath && child.pid) process.kill(-child.pid, signal);
            else child.kill(signal);
            return exited;
          },
        });
      }
    });
  });
}
