/**
 * Members and invites: who is in the workspace (anyone renames themselves, owners rename and remove
 * anyone; anyone may leave), invite keys (create with a label, copy the join instructions, revoke),
 * and tokens (revoke). Owners manage invites and every token; others see their own tokens.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, ApiError, useApi } from '../api.ts';
import { formText } from '../forms.ts';
import { Badge, copyText, CopyButton, DataTable, EmptyState, ErrorNotice, Loading, PageHeader, StatusMessage, type BadgeTone } from '../components/ui.tsx';
import { formatDate, formatDateTime, formatRelative } from '../format.ts';
import { useSession, useSessionApi } from '../session.tsx';
import type { CreatedInvite, Invite, Member, Token, Workspace } from '../types.ts';

const INVITE_TONE: Record<string, BadgeTone> = { active: 'success', revoked: 'neutral', expired: 'neutral', used_up: 'warning' };
const INVITE_LABEL: Record<string, string> = { active: 'Active', revoked: 'Revoked', expired: 'Expired', used_up: 'Used up' };

const mcpUrl = () => `${window.location.origin}/mcp`;

/** What to send a teammate along with the key. */
export function joinInstructions(workspace: { name: string; engram_id?: string }, invite: CreatedInvite): string {
  const origin = window.location.origin;
  return [
    `You're invited to the Engram workspace "${workspace.name}"${workspace.engram_id ? ` (${workspace.engram_id})` : ''}: shared memory for our coding agents.`,
    '',
    `1. Add Engram to your agent (no token needed yet). MCP URL: ${mcpUrl()}`,
    `   Claude Code: claude mcp add --transport http engram ${mcpUrl()}`,
    `2. Ask your agent to call engram_join with this invite key (it replies with your own token and the config to paste):`,
    `   ${invite.invite_key}`,
    '',
    `No agent at hand? Open ${origin}/join in a browser, or run:`,
    `   curl -X POST ${origin}/api/v1/join -H 'content-type: application/json' -d '{"invite_key":"${invite.invite_key}"}'`,
    '',
    `The key works ${invite.uses_remaining === 1 ? 'once' : `${invite.uses_remaining} times`} until ${formatDate(invite.expires_at)}. Keep it private.`,
  ].join('\n');
}

export function MembersView() {
  const session = useSession();
  const owner = session.member.role === 'owner';
  const workspace = useApi<Workspace>('/workspace');
  const membersList = useApi<{ members: Member[] }>('/members');
  const invites = useApi<{ invites: Invite[] }>(owner ? '/invites' : null);
  const tokens = useApi<{ tokens: Token[] }>('/tokens');
  const [message, setMessage] = useState<string | null>(null);
  const names = new Map((membersList.data?.members ?? []).map((m) => [m.member_id, m.display_name ?? 'Unnamed member']));
  const { renamed } = useSessionApi();
  const afterRename = (member: Member, name: string) => {
    setMessage(member.you ? `You are now called ${name}.` : `${names.get(member.member_id) ?? 'The member'} is now called ${name}.`);
    if (member.you) renamed(name);
    membersList.reload();
  };
  const liveOwners = (membersList.data?.members ?? []).filter((m) => m.role === 'owner' && !m.removed_at).length;
  const claudeCommand = `claude mcp add --transport http engram ${mcpUrl()} --header "Authorization: Bearer <your token>"`;
  const afterRemoval = () => {
    membersList.reload();
    tokens.reload();
    workspace.reload();
  };

  return (
    <>
      <PageHeader title="Members and invites" description="Invite teammates, see who is in the workspace, and remove members or revoke access." />
      <StatusMessage message={message} />

      <section className="card" aria-labelledby="connect-heading">
        <h2 id="connect-heading" className="card-heading">
          Connect an agent
        </h2>
        {workspace.data ? (
          <p>
            Workspace <strong>{workspace.data.name}</strong> <code>{workspace.data.engram_id}</code> · {workspace.data.members}{' '}
            {workspace.data.members === 1 ? 'member' : 'members'}
          </p>
        ) : workspace.error ? (
          <ErrorNotice error={workspace.error} title="Could not load the workspace" onRetry={workspace.reload} />
        ) : null}
        <p>
          MCP endpoint: <code>{mcpUrl()}</code>
        </p>
        <figure className="config-block" aria-labelledby="claude-code-heading">
          <div className="config-head">
            <span id="claude-code-heading">Claude Code (run in a terminal)</span>
            <CopyButton text={claudeCommand} what="the Claude Code command" />
          </div>
          <pre className="code-block">{claudeCommand}</pre>
        </figure>
      </section>

      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Members</h2>
        {membersList.error ? (
          <ErrorNotice error={membersList.error} title="Could not load the members" onRetry={membersList.reload} />
        ) : !membersList.data ? (
          <Loading label="Loading members…" />
        ) : (
          <DataTable caption="Members">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Joined</th>
                <th scope="col" className="numeric">
                  Active tokens
                </th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {membersList.data.members.map((m) => (
                <tr key={m.member_id} data-member-id={m.member_id}>
                  <th scope="row" data-label="Name" className="phone-wide">
                    {m.display_name ?? <span className="muted">Unnamed member</span>} {m.you ? <Badge tone="info">You</Badge> : null}
                    {m.removed_at ? <Badge>Removed</Badge> : null}
                  </th>
                  <td data-label="Role">{m.role}</td>
                  <td data-label="Joined">{formatDate(m.created_at)}</td>
                  <td data-label="Active tokens" className="numeric">
                    {m.active_tokens}
                  </td>
                  <td data-label="Actions" className="phone-wide">
                    <div className="row-actions">
                      {/* Anyone renames themselves, owners anyone; a removed member keeps their name. */}
                      {!m.removed_at && (owner || m.you) ? (
                        <RenameMember member={m} name={names.get(m.member_id) ?? 'Unnamed member'} onRenamed={(name) => afterRename(m, name)} />
                      ) : null}
                      {/* Owners remove anyone, anyone may leave; a workspace always keeps one owner. */}
                      {!m.removed_at && (owner || m.you) && !(m.role === 'owner' && liveOwners <= 1) ? (
                        <RemoveMember member={m} name={names.get(m.member_id) ?? 'Unnamed member'} onRemoved={afterRemoval} onMessage={setMessage} />
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </DataTable>
        )}
      </section>

      {owner ? (
        <InvitesSection
          invites={invites}
          workspace={workspace.data ?? { name: session.workspace.name, engram_id: session.workspace.engram_id }}
          onMessage={setMessage}
        />
      ) : (
        <section aria-labelledby="invites-heading">
          <h2 id="invites-heading">Invites</h2>
          <p className="muted">Only workspace owners can create invite keys. Ask an owner for one to bring in a teammate.</p>
        </section>
      )}

      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Tokens</h2>
        <p className="muted">{owner ? 'Every token of the workspace.' : 'Your tokens.'} Revoking a token disconnects every agent that uses it, at once.</p>
        {tokens.error ? (
          <ErrorNotice error={tokens.error} title="Could not load the tokens" onRetry={tokens.reload} />
        ) : !tokens.data ? (
          <Loading label="Loading tokens…" />
        ) : tokens.data.tokens.length === 0 ? (
          <EmptyState title="No tokens" />
        ) : (
          <DataTable caption="Tokens">
            <thead>
              <tr>
                <th scope="col">Member</th>
                <th scope="col">Label</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.tokens.map((t) => (
                <TokenRow key={t.token_id} token={t} memberName={names.get(t.member_id) ?? 'Member'} onChanged={tokens.reload} onMessage={setMessage} />
              ))}
            </tbody>
          </DataTable>
        )}
      </section>
    </>
  );
}

function InvitesSection({
  invites,
  workspace,
  onMessage,
}: {
  invites: ReturnType<typeof useApi<{ invites: Invite[] }>>;
  workspace: { name: string; engram_id?: string };
  onMessage: (message: string) => void;
}) {
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [copyStatus, setCopyStatus] = useState<string | null>(null);
  const instructionsRef = useRef<HTMLTextAreaElement>(null);
  const keyRef = useRef<HTMLInputElement>(null);
  // The new key appears below the form, often below the fold: bring it into view and focus it, so
  // the owner sees it (and a screen reader reads it) without hunting for it.
  useEffect(() => {
    if (!created) return;
    keyRef.current?.scrollIntoView({ block: 'center' });
    keyRef.current?.focus({ preventScroll: true });
  }, [created]);

  const create = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    setCopyStatus(null);
    try {
      const label = formText(form, 'label');
      const invite = await api<CreatedInvite>('POST', '/invites', {
        ...(label ? { label } : {}),
        role: formText(form, 'role'),
        max_uses: Number(formText(form, 'max_uses')),
        expires_in_days: Number(formText(form, 'expires_in_days')),
      });
      setCreated(invite);
      onMessage('Invite created. Copy the join instructions and send them to your teammate.');
      invites.reload();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
    } finally {
      setBusy(false);
    }
  };
  const instructions = created ? joinInstructions(workspace, created) : '';

  return (
    <section aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invites</h2>
      <form className="card filters filters-compact" aria-labelledby="new-invite-heading" onSubmit={(e) => void create(e)}>
        <h3 id="new-invite-heading" className="card-heading full-row">
          New invite key
        </h3>
        <div className="field">
          <label htmlFor="i-label">Label (optional)</label>
          <input id="i-label" name="label" maxLength={100} placeholder="e.g. backend team" aria-describedby="i-label-hint" />
        </div>
        <div className="field">
          <label htmlFor="i-role">Role</label>
          <select id="i-role" name="role" defaultValue="member" aria-describedby="i-role-hint">
            <option value="member">Member</option>
            <option value="reader">Reader</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="i-uses">Uses</label>
          <input id="i-uses" name="max_uses" type="number" min={1} max={1000} defaultValue={10} required />
        </div>
        <div className="field">
          <label htmlFor="i-days">Expires in (days)</label>
          <input id="i-days" name="expires_in_days" type="number" min={1} max={365} defaultValue={7} required />
        </div>
        <div className="filter-actions">
          <button type="submit" className="button" disabled={busy}>
            {busy ? 'Creating…' : 'Create invite'}
          </button>
        </div>
        <p id="i-role-hint" className="hint full-row">
          A member reads and writes facts; a reader only reads them.
        </p>
        <p id="i-label-hint" className="hint full-row">
          The label tells this invite apart in the list below (who or what it is for); the teammate does not see it.
        </p>
        {error ? (
          <div className="full-row">
            <ErrorNotice error={error} title="The invite was not created" />
          </div>
        ) : null}
      </form>

      {created ? (
        <div className="card invite-created" aria-labelledby="created-heading">
          <h3 id="created-heading" className="card-heading">
            Invite key created{created.label ? `: ${created.label}` : ''}
          </h3>
          <p>
            Send these instructions to your teammate. The key is shown only now; it works{' '}
            {created.uses_remaining === 1 ? 'once' : `${created.uses_remaining} times`} until {formatDate(created.expires_at)}.
          </p>
          <div className="field">
            <label htmlFor="invite-key">Invite key</label>
            <input id="invite-key" ref={keyRef} readOnly value={created.invite_key} className="mono" onFocus={(e) => e.currentTarget.select()} />
          </div>
          <div className="field">
            <label htmlFor="join-instructions">Join instructions</label>
            <textarea id="join-instructions" ref={instructionsRef} readOnly rows={11} value={instructions} className="mono" />
          </div>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => void copyText(instructions, instructionsRef.current).then(setCopyStatus)}>
              Copy join instructions
            </button>
            <button type="button" className="button button-secondary" onClick={() => void copyText(created.invite_key, null).then(setCopyStatus)}>
              Copy key only
            </button>
          </div>
          <p role="status" className="small muted">
            {copyStatus}
          </p>
        </div>
      ) : null}

      {invites.error ? (
        <ErrorNotice error={invites.error} title="Could not load the invites" onRetry={invites.reload} />
      ) : !invites.data ? (
        <Loading label="Loading invites…" />
      ) : invites.data.invites.length === 0 ? (
        <EmptyState title="No invites yet">Create one above to bring a teammate in.</EmptyState>
      ) : (
        <DataTable caption="Invites, newest first">
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Created</th>
              <th scope="col">Role</th>
              <th scope="col" className="numeric">
                Uses left
              </th>
              <th scope="col">Expires</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invites.data.invites.map((invite) => (
              <InviteRow key={invite.invite_id} invite={invite} onChanged={invites.reload} onMessage={onMessage} />
            ))}
          </tbody>
        </DataTable>
      )}
    </section>
  );
}

/** An action that calls the API: whether it is running, and what went wrong last time (in the server's words). */
function useAttempt() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  /** Runs `action`; true when it succeeded. */
  const attempt = async (action: () => Promise<void>): Promise<boolean> => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'client', String(caught)));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, attempt };
}

/** A destructive action in a row: one click asks, a second confirms (or Cancel). */
function ConfirmAction({
  label,
  confirmLabel,
  warning,
  run,
  verb = { button: 'Revoke', busy: 'Revoking…', failed: 'Not revoked' },
}: {
  label: string;
  confirmLabel: string;
  warning?: string;
  run: () => Promise<void>;
  verb?: { button: string; busy: string; failed: string };
}) {
  const [asking, setAsking] = useState(false);
  const { busy, error, attempt } = useAttempt();
  const go = async () => {
    if (await attempt(run)) setAsking(false);
  };
  if (!asking) {
    return (
      <button type="button" className="button button-danger-ghost" aria-label={label} onClick={() => setAsking(true)}>
        {verb.button}
      </button>
    );
  }
  return (
    <div className="confirm-inline">
      {warning ? <p className="small">{warning}</p> : null}
      <button type="button" className="button button-danger" disabled={busy} onClick={() => void go()} autoFocus>
        {busy ? verb.busy : confirmLabel}
      </button>
      <button type="button" className="button button-ghost" disabled={busy} onClick={() => setAsking(false)}>
        Cancel
      </button>
      {error ? <ErrorNotice error={error} title={verb.failed} /> : null}
    </div>
  );
}

/** Renames a member in place: a button that opens a one-field form; the server's refusal (a taken name) is shown as it says it. */
function RenameMember({ member, name, onRenamed }: { member: Member; name: string; onRenamed: (name: string) => void }) {
  const [editing, setEditing] = useState(false);
  const { busy, error, attempt } = useAttempt();
  const inputId = `rename-${member.member_id}`;
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = formText(new FormData(event.currentTarget), 'display_name');
    await attempt(async () => {
      const out = await api<{ display_name: string }>('PATCH', `/members/${member.member_id}`, { display_name: next });
      setEditing(false);
      onRenamed(out.display_name);
    });
  };
  if (!editing) {
    return (
      <button type="button" className="button button-secondary button-small" aria-label={member.you ? 'Rename yourself' : `Rename ${name}`} onClick={() => setEditing(true)}>
        Rename
      </button>
    );
  }
  return (
    <form className="rename-form" onSubmit={(e) => void submit(e)}>
      <label htmlFor={inputId} className="small">
        {member.you ? 'Your new name' : `New name for ${name}`}
      </label>
      <input id={inputId} name="display_name" defaultValue={member.display_name ?? ''} maxLength={100} required autoFocus autoComplete="off" />
      <button type="submit" className="button button-small" disabled={busy}>
        {busy ? 'Saving…' : 'Save name'}
      </button>
      <button type="button" className="button button-ghost button-small" disabled={busy} onClick={() => setEditing(false)}>
        Cancel
      </button>
      {error ? <ErrorNotice error={error} title="Not renamed" /> : null}
    </form>
  );
}

/** Removes a member (owners), or lets you leave: their tokens and sessions end, their facts stay. */
function RemoveMember({ member, name, onRemoved, onMessage }: { member: Member; name: string; onRemoved: () => void; onMessage: (m: string) => void }) {
  const tokens = `${member.active_tokens} active ${member.active_tokens === 1 ? 'token' : 'tokens'}`;
  return (
    <ConfirmAction
      label={member.you ? 'Leave the workspace' : `Remove ${name} from the workspace`}
      confirmLabel={member.you ? 'Confirm leave' : 'Confirm remove'}
      verb={member.you ? { button: 'Leave', busy: 'Leaving…', failed: 'You did not leave' } : { button: 'Remove', busy: 'Removing…', failed: 'Not removed' }}
      warning={
        member.you
          ? `You leave the workspace: your ${tokens} and dashboard sessions stop working within seconds, starting with this one. The facts you committed are kept. To come back you need a new invite.`
          : `${name}'s ${tokens} and dashboard sessions stop working within seconds: agents using them are disconnected. Their facts are kept, attributed to their agents as before. To come back they need a new invite.`
      }
      run={async () => {
        await api('DELETE', `/members/${member.member_id}`);
        onMessage(member.you ? 'You left the workspace.' : `${name} was removed: their tokens no longer work; their facts are kept.`);
        onRemoved();
      }}
    />
  );
}

function InviteRow({ invite, onChanged, onMessage }: { invite: Invite; onChanged: () => void; onMessage: (m: string) => void }) {
  return (
    <tr data-invite-id={invite.invite_id}>
      <td data-label="Label">{invite.label ?? <span className="muted">no label</span>}</td>
      <td data-label="Created">{formatDateTime(invite.created_at)}</td>
      <td data-label="Role">{invite.role}</td>
      <td data-label="Uses left" className="numeric">
        {invite.uses_remaining}
      </td>
      <td data-label="Expires">
        <time dateTime={invite.expires_at} title={formatDateTime(invite.expires_at)}>
          {formatRelative(invite.expires_at)}
        </time>
      </td>
      <td data-label="Status">
        <Badge tone={INVITE_TONE[invite.status] ?? 'neutral'}>{INVITE_LABEL[invite.status] ?? invite.status}</Badge>
      </td>
      <td data-label="Actions" className="phone-wide">
        {invite.status === 'active' ? (
          <ConfirmAction
            label={`Revoke invite ${invite.label ? `"${invite.label}"` : `created ${formatDateTime(invite.created_at)}`}`}
            confirmLabel="Confirm revoke"
            run={async () => {
              await api('DELETE', `/invites/${invite.invite_id}`);
              onMessage('Invite revoked: its key no longer works.');
              onChanged();
            }}
          />
        ) : null}
      </td>
    </tr>
  );
}

function TokenRow({ token, memberName, onChanged, onMessage }: { token: Token; memberName: string; onChanged: () => void; onMessage: (m: string) => void }) {
  return (
    <tr data-token-id={token.token_id}>
      <td data-label="Member">{memberName}</td>
      <td data-label="Label">
        {token.label ?? <span className="muted">no label</span>} {token.current ? <Badge tone="info">This session</Badge> : null}
      </td>
      <td data-label="Created">{formatDate(token.created_at)}</td>
      <td data-label="Last used">{token.last_used_at ? formatRelative(token.last_used_at) : 'never'}</td>
      <td data-label="Status">{token.revoked_at ? <Badge>Revoked {formatDate(token.revoked_at)}</Badge> : <Badge tone="success">Active</Badge>}</td>
      <td data-label="Actions" className="phone-wide">
        {token.revoked_at ? null : (
          <ConfirmAction
            label={`Revoke token of ${memberName}${token.label ? ` (${token.label})` : ''}`}
            confirmLabel="Confirm revoke"
            warning={token.current ? 'You signed in with this token: revoking it signs you out.' : undefined}
            run={async () => {
              await api('DELETE', `/tokens/${token.token_id}`);
              onMessage('Token revoked: agents using it are disconnected.');
              onChanged();
            }}
          />
        )}
      </td>
    </tr>
  );
}
