import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { issueToken } from '@engram/core';
import { auditLog, createDb, forWorkspace, invites, members, tokens } from '@engram/db';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cliEnv, runCli, startCli } from '../support/cli.ts';
import { MIGRATION_COUNT } from '../support/migrations.ts';

// Each test spawns several `engram` processes; on a busy 2-core machine one can take many seconds.
describe('engram CLI', { timeout: 180_000 }, () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'engram-cli-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('starts on a fresh data dir, prints the banner, serves MCP with the printed token, stops on SIGTERM', async () => {
    const cli = await startCli(cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' }), undefined, [process.execPath, CLI, 'start', '--owner-name', 'Ada Lovelace']);
    try {
      expect(cli.banner).toMatch(/Engram is ready/);
      expect(cli.banner).toMatch(/\(created now\)/);
      // The workspace's invite is shown once, where the owner can hand it out; the owner has a name.
      const inviteKey = /Invite key\s+(ek_\S+)/.exec(cli.banner)?.[1];
      expect(inviteKey).toBeDefined();
      expect(cli.banner).toMatch(/10 uses, 7 days/);
      expect(cli.banner).toMatch(/^ {2}Owner name {5}Ada Lovelace$/m);
      const base = cli.mcpUrl.replace(/\/mcp$/, '');
      const members = await fetch(`${base}/api/v1/members`, { headers: { authorization: `Bearer ${cli.ownerToken}` } });
      expect(((await members.json()) as { members: { display_name: string | null }[] }).members.map((m) => m.display_name)).toEqual(['Ada Lovelace']);
      const joined = await fetch(`${base}/api/v1/join`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invite_key: inviteKey, display_name: 'Grace' }) });
      expect(joined.status).toBe(201);
      expect(cli.mcpUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      expect(cli.dashboardUrl).toBe(cli.mcpUrl.replace(/mcp$/, ''));
      expect(cli.ownerToken).toMatch(/^egm_/);
      expect(cli.banner).toContain(`claude mcp add --transport http engram ${cli.mcpUrl} --header "Authorization: Bearer ${cli.ownerToken}"`);

      const client = new Client({ name: 'cli-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(cli.mcpUrl), {
          requestInit: { headers: { Authorization: `Bearer ${cli.ownerToken}` } },
        }),
      );
      const result = await client.callTool({ name: 'engram_status', arguments: {} });
      expect(result.structuredContent).toMatchObject({ status: 'ready' });
      await client.close();

      const dashboard = await fetch(cli.dashboardUrl);
      expect(dashboard.status).toBe(200);
      // The dashboard app (built by `npm test` before the suite, and by `npm start`) and its script.
      const html = await dashboard.text();
      expect(html).toContain('<div id="root"></div>');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      expect(script).toBeDefined();
      expect((await fetch(new URL(script!, cli.dashboardUrl))).status).toBe(200);
    } finally {
      expect(await cli.stop('SIGTERM')).toBe(0);
    }
    expect(fs.existsSync(path.join(dataDir, 'pgdata.lock'))).toBe(false);
  });

  it('prints the same token after a restart', async () => {
    const token = JSON.parse(fs.readFileSync(path.join(dataDir, 'local-workspace.json'), 'utf8')).owner_token;
    const cli = await startCli(cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' }));
    try {
      expect(cli.ownerToken).toBe(token);
      expect(cli.banner).not.toMatch(/created now/);
      expect(cli.banner).not.toMatch(/Invite key/);
    } finally {
      expect(await cli.stop('SIGINT')).toBe(0);
    }
  });

  it('migrates and creates workspaces from the command line', async () => {
    const migrate = await runCli(['migrate'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(migrate.code).toBe(0);
    expect(migrate.stdout).toContain(`0 applied, ${MIGRATION_COUNT} in total`);

    const created = await runCli(['workspace', 'create', '--name', 'Team B', '--json'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(created.code).toBe(0);
    const body = JSON.parse(created.stdout) as Record<string, string>;
    expect(body).toMatchObject({ name: 'Team B', mcp_url: 'http://localhost:8080/mcp' });
    expect(body.owner_token).toMatch(/^egm_/);
    expect(body.invite_key).toMatch(/^ek_/);
  });

  it('imports a journal file into a running server and exports it again', async () => {
    const cli = await startCli(cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' }));
    try {
      const url = cli.dashboardUrl.replace(/\/$/, '');
      const file = path.join(dataDir, 'story.ndjson');
      const lines = [
        { content: 'We use REST for the public API', scope: 'api', agent_id: 'agent-1', committed_at: '2026-01-01T00:00:00.000Z' },
        { content: 'We switched the public API to GraphQL', scope: 'api', agent_id: 'agent-2', committed_at: '2026-02-01T00:00:00.000Z', id: 'ignored', valid_until: null },
      ];
      fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n'));
      // The token defaults to the embedded owner token recorded in the data directory.
      const imported = await runCli(['import', file, '--url', url], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect(imported.stderr).toBe('');
      expect(imported.stdout).toMatch(/Imported 2 new fact\(s\); 0 were already known/);
      const again = await runCli(['import', file, '--url', url, '--json'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect((JSON.parse(again.stdout) as { facts: { duplicate: boolean }[] }).facts.every((f) => f.duplicate)).toBe(true);

      const exported = await runCli(['export', '--url', url, '--scope', 'api'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect(exported.code).toBe(0);
      const rows = exported.stdout.trim().split('\n').map((l) => JSON.parse(l) as { content: string; committed_at: string });
      expect(rows.map((r) => [r.content, r.committed_at])).toEqual(lines.map((l) => [l.content, l.committed_at]));

      // A file in several requests (--batch 2), one fact with a secret: the others are stored, the
      // refused one is named by its line in the file, and the command exits 1.
      const secret = `${'k3v9Qz7LmP2x'}${'R8tW4yB6nD1fH5jS0aZc'}`;
      const mixed = path.join(dataDir, 'mixed.ndjson');
      const fact = (content: string, hour: number) => JSON.stringify({ content, scope: 'ops', agent_id: 'agent-1', committed_at: `2026-03-01T${String(hour).padStart(2, '0')}:00:00.000Z` });
      fs.writeFileSync(
        mixed,
        [
          fact('Backups run nightly at 02:00 UTC', 1),
          '',
          fact('The ops runbook lives in docs/runbook.md', 2),
          fact(`Django settings hard-code SECRET_KEY = '${secret}' in settings.py`, 3),
          fact('Alerts page the on-call engineer after 5 minutes', 4),
          fact('Backups run nightly at 02:00 UTC', 1),
        ].join('\n'),
      );
      const partly = await runCli(['import', mixed, '--url', url, '--batch', '2'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect(partly.code).toBe(1);
      expect(partly.stderr).toBe('');
      expect(partly.stdout).toMatch(/Imported 3 new fact\(s\); 1 were already known; 1 refused\./);
      expect(partly.stdout).toMatch(/^ {2}line 4: content appears to contain a secret assigned to a variable \(pattern: secret_assignment\); remove it$/m);
      expect(partly.stdout).not.toContain(secret);
      const rerun = await runCli(['import', mixed, '--url', url, '--batch', '2', '--json'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect(rerun.code).toBe(1);
      expect(JSON.parse(rerun.stdout)).toMatchObject({
        stored: 0,
        duplicates: 4,
        refused: 1,
        facts: [{ duplicate: true }, { duplicate: true }, { line: 4, refused: true, problems: [{ field: 'content' }] }, { duplicate: true }, { duplicate: true }],
      });

      const noToken = await runCli(['export', '--url', url, '--token', 'egm_wrong'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
      expect(noToken.code).toBe(1);
      expect(noToken.stderr).toMatch(/401/);
    } finally {
      await cli.stop();
    }
  });

  it('issues and revokes tokens for an operator', async () => {
    const created = JSON.parse(
      (await runCli(['workspace', 'create', '--name', 'Ops', '--json'], cliEnv({ ENGRAM_DATA_DIR: dataDir }))).stdout,
    ) as { engram_id: string };
    const issued = await runCli(['token', 'create', '--workspace', created.engram_id, '--label', 'rescue'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(issued.code).toBe(0);
    const tokenId = /Token ([0-9a-f-]{36})/.exec(issued.stdout)?.[1];
    expect(issued.stdout).toMatch(/egm_[A-Za-z0-9_-]{43}/);
    const revoked = await runCli(['token', 'revoke', tokenId!, '--workspace', created.engram_id], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(revoked.stdout).toContain(`Revoked token ${tokenId}`);
    const missing = await runCli(['token', 'create', '--workspace', 'ENG-NONE-NONE'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No workspace ENG-NONE-NONE/);
  });

  it('lists and removes members for an operator: tokens end, the removal is audited, the last owner stays', async () => {
    const env = cliEnv({ ENGRAM_DATA_DIR: dataDir });
    const created = JSON.parse((await runCli(['workspace', 'create', '--name', 'Crew', '--owner-name', 'Olive', '--json'], env)).stdout) as {
      engram_id: string;
      workspace_id: string;
    };
    // A member with a token, written straight to the embedded database (a CLI command holds it
    // only while it runs).
    const open = () => createDb({ kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') });
    let db = await open();
    const tenant = () => forWorkspace(db.db, created.workspace_id);
    let miaId: string;
    try {
      const [mia] = await tenant().insert(members, { role: 'member', displayName: 'Mia' }).returning();
      miaId = mia!.id;
      await issueToken(tenant(), miaId, 'laptop');
    } finally {
      await db.close();
    }

    const listed = await runCli(['member', 'list', '--workspace', created.engram_id], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${miaId}  member  1 active token\\(s\\) +Mia$`, 'm'));
    const ownerId = /^([0-9a-f-]{36}) {2}owner /m.exec(listed.stdout)?.[1];
    expect(ownerId).toBeDefined();

    const removed = await runCli(['member', 'remove', '--workspace', created.engram_id, '--member', miaId], env);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed member Mia from ${created.engram_id}: 1 token(s) revoked, 0 dashboard session(s) ended; their facts are kept.`);
    expect(removed.stdout).toMatch(/Running servers stop accepting those tokens within 5 s\./);
    const again = await runCli(['member', 'remove', '--workspace', created.engram_id, '--member', miaId], env);
    expect(again.stdout).toMatch(/member Mia was already removed .*nothing changed\./);
    expect((await runCli(['member', 'list', '--workspace', created.engram_id], env)).stdout).toMatch(new RegExp(`^${miaId}  member  removed `, 'm'));

    const lastOwner = await runCli(['member', 'remove', '--workspace', created.engram_id, '--member', ownerId!], env);
    expect(lastOwner.code).toBe(1);
    expect(lastOwner.stderr).toMatch(/"Olive" is the last owner of the workspace.*nothing was removed/);
    const unknown = await runCli(['member', 'remove', '--workspace', created.engram_id, '--member', 'nobody'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`No member nobody in ${created.engram_id}. List them with: engram member list --workspace ${created.engram_id}`);
    expect((await runCli(['member', 'remove', '--workspace', created.engram_id], env)).stderr).toMatch(/Usage: engram member list/);

    db = await open();
    try {
      const theirs = await tenant().select(tokens, eq(tokens.memberId, miaId));
      expect(theirs.map((t) => t.revokedAt)).toEqual([expect.any(Date)]);
      const audited = await tenant().select(auditLog, eq(auditLog.action, 'engram member remove'));
      expect(audited.map((e) => [e.actor, e.outcome, e.summary.member_id])).toEqual([
        ['operator', 'ok', miaId],
        ['operator', 'ok', miaId],
      ]);
    } finally {
      await db.close();
    }
  });

  it('lists members, issues tokens and creates workspaces while engram start holds the embedded database', async () => {
    const env = cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: '0' });
    const cli = await startCli(env);
    const url = new URL(cli.mcpUrl).origin;
    const workspaceOf = async (token: string) => {
      const res = await fetch(`${url}/api/v1/workspace`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      return ((await res.json()) as { engram_id: string }).engram_id;
    };
    try {
      const local = JSON.parse(fs.readFileSync(path.join(dataDir, 'local-workspace.json'), 'utf8')) as { engram_id: string };
      const listed = await runCli(['member', 'list', '--workspace', local.engram_id, '--url', url], env);
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stderr).toContain(`(The embedded database is open in the running server; asking it at ${url}.)`);
      expect(listed.stdout).toMatch(new RegExp(`^Members of ${local.engram_id} "Local workspace":\n[0-9a-f-]{36} {2}owner +\\d+ active token\\(s\\)`));

      // A lost owner token: a new one, without stopping the server.
      const issued = await runCli(['token', 'create', '--workspace', local.engram_id, '--label', 'lost laptop', '--url', url], env);
      expect(issued.code, issued.stderr).toBe(0);
      const token = /^(egm_\S+)$/m.exec(issued.stdout)?.[1];
      expect(issued.stdout).toMatch(/^Token [0-9a-f-]{36} for owner /);
      expect(await workspaceOf(token!)).toBe(local.engram_id);

      const created = await runCli(['workspace', 'create', '--name', 'While running', '--owner-name', 'Rita', '--json', '--url', url], env);
      expect(created.code, created.stderr).toBe(0);
      const body = JSON.parse(created.stdout) as { engram_id: string; owner_token: string; mcp_url: string };
      expect(body.mcp_url).toBe(`${url}/mcp`);
      expect(await workspaceOf(body.owner_token)).toBe(body.engram_id);
      // Any workspace of the database, not only the one the server created.
      const theirs = await runCli(['member', 'list', '--workspace', body.engram_id, '--url', url], env);
      expect(theirs.stdout).toMatch(/ {2}owner +1 active token\(s\) +Rita$/m);

      const missing = await runCli(['token', 'create', '--workspace', 'ENG-NONE-NONE', '--url', url], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('answered 404: No workspace ENG-NONE-NONE on this database.');

      // A leaked token, or a member who left: revoked and removed without stopping the server,
      // and this server stops accepting them at once.
      const tokenId = /^Token ([0-9a-f-]{36}) /.exec(issued.stdout)![1]!;
      const revoked = await runCli(['token', 'revoke', tokenId, '--workspace', local.engram_id, '--url', url], env);
      expect(revoked.stdout, revoked.stderr).toBe(`Revoked token ${tokenId}.\n`);
      expect((await fetch(`${url}/api/v1/workspace`, { headers: { authorization: `Bearer ${token!}` } })).status).toBe(401);
      const rita = /^([0-9a-f-]{36}) {2}owner /m.exec(theirs.stdout)![1]!;
      const lastOwner = await runCli(['member', 'remove', '--workspace', body.engram_id, '--member', rita, '--url', url], env);
      expect(lastOwner.code).toBe(1);
      expect(lastOwner.stderr).toMatch(/answered 409: "Rita" is the last owner of the workspace/);
      const joined = await fetch(`${url}/api/v1/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ invite_key: (JSON.parse(created.stdout) as { invite_key: string }).invite_key, display_name: 'Sam' }),
      });
      const sam = (await joined.json()) as { member_id: string; token: string };
      const removed = await runCli(['member', 'remove', '--workspace', body.engram_id, '--member', sam.member_id, '--url', url], env);
      expect(removed.stdout, removed.stderr).toMatch(new RegExp(`^Removed member Sam from ${body.engram_id}: 1 token\\(s\\) revoked`));
      expect((await fetch(`${url}/api/v1/workspace`, { headers: { authorization: `Bearer ${sam.token}` } })).status).toBe(401);
    } finally {
      await cli.stop();
    }
  });

  it('names an owner nobody named "Owner", says how to rename, and renames members for an operator (names unique, audited)', async () => {
    const env = cliEnv({ ENGRAM_DATA_DIR: dataDir });
    const made = await runCli(['workspace', 'create', '--name', 'Unnamed crew', '--invite-label', 'launch day'], env);
    expect(made.code, made.stderr).toBe(0);
    const hint = /^ {2}Owner name {3}Owner \(rename: (engram member rename --workspace (ENG-[A-Z0-9-]+) --member ([0-9a-f-]{36}) --name "Your Name")\)$/m.exec(made.stdout);
    expect(hint, made.stdout).not.toBeNull();
    const [, , engramId, ownerId] = hint!;

    const renamed = await runCli(['member', 'rename', '--workspace', engramId!, '--member', ownerId!, '--name', ' Ada Lovelace '], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain(`Renamed owner "Owner" to "Ada Lovelace" in ${engramId}.`);
    expect((await runCli(['member', 'list', '--workspace', engramId!], env)).stdout).toMatch(new RegExp(`^${ownerId}  owner .* Ada Lovelace$`, 'm'));

    // A second member may not take the name, in any case.
    const db = await createDb({ kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') });
    let mia: string;
    let labels: (string | null)[];
    try {
      const [row] = await db.db.select().from(members).where(eq(members.id, ownerId!));
      const tenant = forWorkspace(db.db, row!.workspaceId);
      mia = (await tenant.insert(members, { role: 'member', displayName: 'Mia' }).returning())[0]!.id;
      labels = (await tenant.select(invites)).map((i) => i.label);
    } finally {
      await db.close();
    }
    expect(labels).toEqual(['launch day']);
    const taken = await runCli(['member', 'rename', '--workspace', engramId!, '--member', mia, '--name', 'ADA LOVELACE'], env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('Another member of this workspace is already called "ADA LOVELACE"');
    expect((await runCli(['member', 'rename', '--workspace', engramId!, '--member', mia], env)).stderr).toMatch(/Usage: engram member list/);
    expect((await runCli(['workspace', 'create', '--invite-label', ' '], env)).stderr).toContain('--invite-label must be 1 to 100 characters');

    const after = await createDb({ kind: 'pglite', dataDir: path.join(dataDir, 'pgdata') });
    try {
      const audited = await after.db.select().from(auditLog).where(eq(auditLog.action, 'engram member rename'));
      expect(audited.map((e) => [e.actor, e.outcome, e.summary.member_id])).toEqual([['operator', 'ok', ownerId]]);
    } finally {
      await after.close();
    }
  });

  it('fails fast on bad configuration, naming the variable', async () => {
    const result = await runCli(['start'], cliEnv({ ENGRAM_DATA_DIR: dataDir, PORT: 'eighty', DATABASE_URL: 'postgres://db/x' }));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('PORT must be an integer from 0 to 65535');
    expect(result.stderr).toContain('ENGRAM_SECRET is required when DATABASE_URL is set');
    const noScheme = await runCli(['start'], cliEnv({ ENGRAM_DATA_DIR: dataDir, ENGRAM_PUBLIC_URL: 'engram.example.com' }));
    expect(noScheme.code).toBe(2);
    expect(noScheme.stderr).toBe(
      'Invalid configuration:\n  - ENGRAM_PUBLIC_URL must be an http(s) URL with its scheme, e.g. ENGRAM_PUBLIC_URL=https://engram.example.com (got "engram.example.com")\n',
    );
  });

  it('refuses a port in use before it creates anything in the data directory', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as net.AddressInfo;
    const fresh = path.join(dataDir, 'never-created');
    try {
      const result = await runCli(['start'], cliEnv({ ENGRAM_DATA_DIR: fresh, PORT: String(port) }));
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`engram: port ${port} is in use: set PORT to a free port (e.g. PORT=${port + 1}) or stop the other process\n`);
      expect(fs.existsSync(fresh)).toBe(false);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it('explains unknown commands', async () => {
    const result = await runCli(['frobnicate'], cliEnv({ ENGRAM_DATA_DIR: dataDir }));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown command "frobnicate"/);
    expect(result.stderr).toMatch(/Usage: engram/);
  });
});
