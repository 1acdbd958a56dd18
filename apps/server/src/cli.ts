#!/usr/bin/env node
/**
 * The `engram` command: start the service, run migrations, provision a workspace, move facts in
 * and out, re-embed, run detection workers.
 * Configuration comes from the environment (see README); a bad value stops here with a message
 * naming the variable.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '@engram/config';
import { provisionWorkspace, toProvisionedWorkspaceBody, type ProvisionedWorkspaceBody, type ProvisionWorkspaceInput } from '@engram/core';
import { createDb, migrate } from '@engram/db';
import { renameCommand, startupBanner } from './banner.ts';
import { resolveSecret } from './local-state.ts';
import { createLogger } from './logger.ts';
import { checkCommand } from './commands/check.ts';
import { detectionCommand } from './commands/detection.ts';
import { exportCommand, importCommand } from './commands/journal.ts';
import { memberCommand } from './commands/members.ts';
import { openUnlessHeld, operatorClient } from './commands/running-server.ts';
import { reembedCommand } from './commands/reembed.ts';
import { tokenCommand } from './commands/tokens.ts';
import { workerCommand } from './commands/worker.ts';
import { startServer } from './server.ts';

const USAGE = `Usage: engram <command> [options]

Commands:
  start                     Start the service (applies migrations first)
      --owner-name <name>     Embedded mode: the owner's display name when the first start creates
                              the workspace (default: your account's user name)
  migrate                   Apply database migrations and exit
  workspace create          Create a workspace; prints its owner token and invite key
      --name <name>           Workspace name
      --owner-name <name>     Owner's display name (default: "Owner"; rename with member rename)
      --invite-label <text>   Label of the first invite, shown in invite lists
      --anonymous             Strip member identity from stored facts
      --anon-agents           Replace agent ids with per-session random ids
      --json                  Print JSON instead of text
      --url <url>             While engram start holds the embedded database, the server to ask
                              (default: ENGRAM_PUBLIC_URL or http://127.0.0.1:$PORT)
  import FILE               Import facts (NDJSON or JSON) into a running server's workspace
      --url <url>             Server (default: ENGRAM_PUBLIC_URL or http://127.0.0.1:$PORT)
      --token <token>         Member token (default: the embedded owner token in ENGRAM_DATA_DIR)
      --batch <n>             Facts per request (default 1000; large files are split by size too)
      --json                  Print the ids of the imported facts and the refused lines as JSON
  export                    Print the workspace's facts journal as NDJSON
      --after <iso>           Only facts committed after this instant
      --scope <scope>         Only this scope and below
      --url, --token          As for import
  check                     Compare the code that facts cite with this git checkout: each citation
                            unchanged, changed (with the hunk) or gone, and cited config values
                            against the facts' values; exits 1 when any changed (docs/citations.md)
      --repo <dir>            The checkout (default: the current directory)
      --report                Tell the server: unchanged facts are verified, the others raise
                              stale questions for people
      --url, --token          As for import
      --json                  Print JSON
  token create              Issue a token (default: for the workspace's owner)
      --workspace <ENG-id>    Workspace (required)
      --member <member id>    Another member
      --label <text>          Label shown in token lists
      --url <url>             As for workspace create
  token revoke TOKEN_ID     Revoke a token (--workspace required; --url as for workspace create)
  member list               List a workspace's members with their ids (--workspace required;
                              --url as for workspace create)
  member rename             Rename a member (names are unique in a workspace, ignoring case)
      --workspace <ENG-id>    Workspace (required)
      --member <member id>    The member (see member list)
      --name <name>           The new display name
  member remove             Remove a member: revokes their tokens, ends their dashboard
                            sessions, keeps their facts (audited)
      --workspace <ENG-id>    Workspace (required)
      --member <member id>    The member (see member list)
      --url <url>             As for workspace create
  worker                    Run detection workers as their own process (needs DATABASE_URL;
                            start the service with ENGRAM_IN_PROCESS_WORKER=false)
      --concurrency <n>       Workers in this process (default 1)
  detection status          Detection jobs per workspace: pending, running, failed, stuck
      --workspace <ENG-id>    One workspace (default: all)
      --json                  Print JSON
  detection requeue         Requeue failed detection jobs: due now, attempts reset (audited)
      --workspace <ENG-id>    One workspace
      --all                   Every workspace
  reembed                   Recompute embeddings with the configured embedder
  help                      Show this message

Configuration is read from environment variables; see README.md.`;

const SHUTDOWN_TIMEOUT_MS = 10_000;

async function start(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { 'owner-name': { type: 'string' } }, strict: true });
  const ownerName = values['owner-name']?.trim();
  if (values['owner-name'] !== undefined && (!ownerName || ownerName.length > 100)) {
    throw new Error('--owner-name must be 1 to 100 characters, e.g. --owner-name "Ada Lovelace"');
  }
  const logger = createLogger(config);
  const server = await startServer(config, logger, ownerName ? { ownerName } : {});
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const timer = setTimeout(() => {
      logger.error('shutdown timed out; exiting');
      process.exit(1);
    }, SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.stdout.write(
    `${startupBanner({ config, baseUrl: server.baseUrl, local: server.local, readyMs: performance.now() })}\n`,
  );
}

async function runMigrate(config: Config): Promise<void> {
  const db = await createDb(config.database, { limits: config.databaseLimits });
  try {
    const result = await migrate(db.db);
    process.stdout.write(`Migrations: ${result.applied} applied, ${result.total} in total; the database is up to date.\n`);
  } finally {
    await db.close();
  }
}

async function createWorkspace(config: Config, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      name: { type: 'string' },
      'owner-name': { type: 'string' },
      'invite-label': { type: 'string' },
      anonymous: { type: 'boolean', default: false },
      'anon-agents': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      url: { type: 'string' },
    },
  });
  const inviteLabel = values['invite-label']?.trim();
  if (values['invite-label'] !== undefined && (!inviteLabel || inviteLabel.length > 100)) {
    throw new Error('--invite-label must be 1 to 100 characters, e.g. --invite-label "backend team"');
  }
  const input: ProvisionWorkspaceInput = {
    name: values.name,
    owner_display_name: values['owner-name'],
    anonymous_mode: values.anonymous,
    anon_agents: values['anon-agents'],
    ...(inviteLabel ? { invite: { label: inviteLabel } } : {}),
  };
  const { result, owner } = await provisionHereOrThere(config, input, values.url);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } else {
    process.stdout.write(
      [
        `Workspace "${result.name}" created: ${result.engram_id}`,
        `  MCP URL      ${result.mcp_url}`,
        `  Owner token  ${result.owner_token}`,
        ...(owner ? [`  Owner name   ${owner.name}${values['owner-name'] ? '' : ` (rename: ${renameCommand(result.engram_id, owner.memberId)})`}`] : []),
        `  Invite key   ${result.invite_key}`,
        `  (invite expires ${result.invite_expires_at}; the token and key are shown only now)`,
        '',
      ].join('\n'),
    );
  }
}

/**
 * Provisions in the database, or through the running `engram start` that holds the embedded one
 * (whose answer does not carry the owner's member id: `engram member list` shows it).
 */
async function provisionHereOrThere(
  config: Config,
  input: ProvisionWorkspaceInput,
  url: string | undefined,
): Promise<{ result: ProvisionedWorkspaceBody; owner?: { name: string; memberId: string } }> {
  const db = await openUnlessHeld(config);
  if (!db) return { result: await operatorClient(config, url).call<ProvisionedWorkspaceBody>('POST', '/api/v1/admin/workspaces', input) };
  try {
    await migrate(db.db);
    const created = await provisionWorkspace(db.db, resolveSecret(config), input);
    const result = toProvisionedWorkspaceBody(created, `${config.publicUrl ?? `http://localhost:${config.port}`}/mcp`);
    return { result, owner: { name: created.ownerName, memberId: created.ownerMemberId } };
  } finally {
    await db.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    throw error;
  }
  switch (command) {
    case 'start':
      await start(config, rest);
      return -1; // keeps running
    case 'migrate':
      await runMigrate(config);
      return 0;
    case 'workspace':
      if (rest[0] === 'create') {
        await createWorkspace(config, rest.slice(1));
        return 0;
      }
      process.stderr.write(`Unknown workspace command "${rest[0] ?? ''}". Try: engram workspace create --name <name>\n`);
      return 2;
    case 'import':
      return importCommand(config, rest);
    case 'export':
      await exportCommand(config, rest);
      return 0;
    case 'worker':
      return workerCommand(config, rest);
    case 'check':
      return checkCommand(config, rest);
    case 'detection':
      return detectionCommand(config, rest);
    case 'reembed':
      await reembedCommand(config);
      return 0;
    case 'token':
      await tokenCommand(config, rest);
      return 0;
    case 'member':
      await memberCommand(config, rest);
      return 0;
    default:
      process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`engram: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
