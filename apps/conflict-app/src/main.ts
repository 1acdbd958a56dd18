/**
 * The conflict queue as an MCP App (SPEC §2): the host renders this page in a sandboxed iframe when
 * engram_conflicts is called, hands it the tool's result, and forwards the calls it makes
 * (engram_resolve, engram_commit, engram_conflicts) to the Engram server. Plain DOM, no framework:
 * it ships as one self-contained HTML file (infra/conflict-app-build.ts).
 */
import type { CallToolResult } from '@modelcontextprotocol/client';
import { App, applyDocumentTheme, applyHostFonts, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
// What engram_conflicts and engram_resolve answer, as types only: nothing of the server is bundled.
import type { ConflictFact, ConflictItem, ConflictsOutput, ResolveOutput } from '@engram/core/responses';

const app = new App({ name: 'engram-conflicts', version: '0.1.0' }, {});
const cards = document.getElementById('cards')!;
const summary = document.getElementById('summary')!;
const refresh = document.getElementById('refresh') as HTMLButtonElement;

const letter = (i: number) => (i < 26 ? String.fromCharCode(65 + i) : `#${i + 1}`);
const humanKind = (kind: string) => kind.replaceAll('_', ' ');

/** Dates the way the dashboard shows them ("Nov 22, 2026, 2:20 PM"), in the host's locale and zone when it says. */
function formatTime(iso: string): string {
  const context = app.getHostContext();
  const options: Intl.DateTimeFormatOptions = { dateStyle: 'medium', timeStyle: 'short' };
  if (context?.timeZone) options.timeZone = context.timeZone;
  try {
    return new Intl.DateTimeFormat(context?.locale ?? 'en-US', options).format(new Date(iso));
  } catch {
    return new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  }
}

/** `document.createElement` with text and attributes (text is always set as text, never parsed). */
function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/** Who committed a fact: the member's name beside the agent id, or the agent id alone. */
const committer = (fact: ConflictFact) => (fact.member ? `${fact.member}, ${fact.agent_id}` : fact.agent_id);

const time = (iso: string) => el('time', { datetime: iso }, formatTime(iso));

function applyContext(context: McpUiHostContext | undefined): void {
  if (context?.theme) applyDocumentTheme(context.theme);
  const fonts = context?.styles?.css?.fonts;
  if (fonts) applyHostFonts(fonts);
}

/** The text of a tool result (what a client without Apps shows, and every error). */
const textOf = (result: CallToolResult) =>
  result.content
    .map((c) => (c.type === 'text' ? c.text : ''))
    .join('\n')
    .trim();

async function callTool<T>(name: string, args: Record<string, unknown>): Promise<T> {
  const result = await app.callServerTool({ name, arguments: args });
  if (result.isError) throw new Error(textOf(result) || `${name} failed`);
  return result.structuredContent as T;
}

/** The belief timeline of the conflict's slot: each fact's validity window, in time order. */
function timeline(conflict: ConflictItem, names: Map<string, string>): HTMLElement {
  const ordered = [...conflict.facts].sort((a, b) => a.committed_at.localeCompare(b.committed_at));
  const list = el('ol', { class: 'timeline', 'aria-labelledby': `timeline-${conflict.conflict_id}` });
  for (const fact of ordered) {
    const until = fact.valid_until ? ['until ', time(fact.valid_until)] : [', still current'];
    list.append(el('li', {}, `${names.get(fact.fact_id)} (${committer(fact)}): from `, time(fact.committed_at), ...until));
  }
  const omitted = conflict.facts_omitted > 0 ? [el('p', { class: 'note' }, `${conflict.facts_omitted} older facts are not listed.`)] : [];
  return el('div', {}, el('h3', { id: `timeline-${conflict.conflict_id}` }, 'Belief timeline'), list, ...omitted);
}

function renderCard(conflict: ConflictItem, scope: string): HTMLElement {
  const id = conflict.conflict_id;
  const names = new Map(conflict.facts.map((f, i) => [f.fact_id, `Fact ${letter(i)}`]));
  const card = el('article', { class: 'card', 'aria-labelledby': `q-${id}`, 'data-conflict-id': id });
  const outcome = el('p', { class: 'outcome', role: 'status', 'aria-live': 'polite' });

  const facts = el('div', { class: 'facts' });
  conflict.facts.forEach((fact, i) => {
    const heading = el('h3', { id: `fact-${id}-${i}` }, names.get(fact.fact_id)!);
    const details = el(
      'dl',
      {},
      ...(fact.member ? [el('dt', {}, 'Member'), el('dd', {}, fact.member)] : []),
      el('dt', {}, 'Agent'),
      el('dd', {}, fact.agent_id),
      el('dt', {}, 'Committed'),
      el('dd', {}, time(fact.committed_at)),
      el('dt', {}, 'Scope'),
      el('dd', {}, fact.scope),
    );
    if (fact.valid_until) details.append(el('dt', {}, 'Closed'), el('dd', {}, time(fact.valid_until)));
    for (const c of fact.citations ?? []) {
      const label = `${c.path}${c.start_line ? `:${c.start_line}${c.end_line && c.end_line !== c.start_line ? `-${c.end_line}` : ''}` : ''}${c.commit ? ` @ ${c.commit.slice(0, 7)}` : ''}`;
      details.append(el('dt', {}, 'Cites'), el('dd', {}, c.url ? el('a', { href: c.url, target: '_blank', rel: 'noreferrer noopener' }, label) : label));
    }
    facts.append(el('section', { class: 'fact', 'aria-labelledby': heading.id }, heading, el('blockquote', {}, fact.content), details));
  });

  const whyId = `why-${id}`;
  const why = el('textarea', { id: whyId, rows: '2', placeholder: 'e.g. Checked config/prod.yaml: the limit is 2000 req/s' });
  const mergeId = `merge-${id}`;
  const merged = el('textarea', { id: mergeId, rows: '2' });
  const mergeSubmit = el('button', { type: 'button' }, 'Commit merged fact and settle');
  const mergePanel = el(
    'div',
    { class: 'merge', hidden: '' },
    el('label', { for: mergeId }, 'Merged fact (committed as a new fact, then kept)'),
    merged,
    el('div', { class: 'actions' }, mergeSubmit),
  );

  const buttons: HTMLButtonElement[] = [];
  const actions = el('div', { class: 'actions', role: 'group', 'aria-label': 'Settle this conflict' });
  const reason = (fallback: string) => why.value.trim() || fallback;
  const settle = async (args: Record<string, unknown>, pending: string) => {
    for (const b of [...buttons, mergeSubmit]) b.disabled = true;
    outcome.className = 'outcome';
    outcome.textContent = pending;
    try {
      const result = await callTool<ResolveOutput>('engram_resolve', { conflict_id: id, ...args });
      const closed = result.closed_fact_ids.map((f) => names.get(f) ?? 'the merged fact');
      outcome.className = 'outcome ok';
      outcome.textContent =
        result.status === 'dismissed'
          ? 'Settled: dismissed as not a real conflict. The detector will not raise these facts together again.'
          : `Settled${result.already_resolved ? ' (already, the same way)' : ''}: ${closed.length > 0 ? `closed ${closed.join(', ')}` : 'nothing left to close'}.`;
      card.dataset.settled = result.status;
      mergePanel.hidden = true;
    } catch (error) {
      outcome.className = 'outcome error';
      outcome.textContent = `Not settled: ${error instanceof Error ? error.message : String(error)}`;
      for (const b of [...buttons, mergeSubmit]) b.disabled = false;
    }
  };

  conflict.facts.forEach((fact, i) => {
    if (fact.valid_until) return; // A closed fact cannot win.
    const keep = el('button', { type: 'button', 'aria-describedby': `fact-${id}-${i}` }, `Keep ${letter(i)}`);
    keep.addEventListener('click', () => {
      void settle(
        { resolution_type: 'winner', winning_claim_id: fact.fact_id, resolution: reason(`Kept ${names.get(fact.fact_id)} (${committer(fact)}) in the Engram conflict app.`) },
        `Keeping ${names.get(fact.fact_id)}…`,
      );
    });
    buttons.push(keep);
  });
  const mergeButton = el('button', { type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': mergeId }, 'Merge');
  mergeButton.addEventListener('click', () => {
    mergePanel.hidden = !mergePanel.hidden;
    mergeButton.setAttribute('aria-expanded', String(!mergePanel.hidden));
    if (!mergePanel.hidden) merged.focus();
  });
  mergeSubmit.addEventListener('click', () => {
    const content = merged.value.trim();
    if (!content) {
      outcome.className = 'outcome error';
      outcome.textContent = 'Write the merged fact first: the claim that is true now.';
      merged.focus();
      return;
    }
    void (async () => {
      try {
        // engram_resolve's merge keeps a fact that is already committed: commit the merged claim first.
        const newest = conflict.facts.at(-1)!;
        const committed = await callTool<{ fact_id: string }>('engram_commit', { content, scope: newest.scope, confidence: 1 });
        await settle({ resolution_type: 'merge', winning_claim_id: committed.fact_id, resolution: reason('Merged in the Engram conflict app.') }, 'Merging…');
      } catch (error) {
        outcome.className = 'outcome error';
        outcome.textContent = `Not merged: ${error instanceof Error ? error.message : String(error)}`;
      }
    })();
  });
  const dismiss = el('button', { type: 'button', class: 'secondary' }, 'Dismiss');
  dismiss.addEventListener('click', () => {
    void settle({ resolution_type: 'dismissed', resolution: reason('Dismissed in the Engram conflict app: not a real conflict.') }, 'Dismissing…');
  });
  buttons.push(mergeButton, dismiss);
  actions.append(...buttons);

  card.append(
    el(
      'p',
      { class: 'tags' },
      el('span', { class: `tag ${conflict.severity}` }, `${conflict.severity[0]!.toUpperCase()}${conflict.severity.slice(1)} severity`),
      el('span', { class: 'tag' }, humanKind(conflict.kind)),
      el('span', { class: 'tag' }, `scope ${scope}`),
    ),
    el('h2', { id: `q-${id}` }, conflict.question),
    ...(conflict.explanation ? [el('p', { class: 'explanation' }, conflict.explanation)] : []),
    facts,
    timeline(conflict, names),
    el('label', { for: whyId }, 'Why (shown to the team)'),
    why,
    actions,
    mergePanel,
    outcome,
  );
  return card;
}

function render(output: ConflictsOutput): void {
  const open = output.groups.flatMap((g) => g.conflicts.filter((c) => c.status === 'open').map((c) => ({ c, scope: g.scope })));
  cards.replaceChildren(...open.map(({ c, scope }) => renderCard(c, scope)));
  summary.textContent =
    open.length === 0 ? 'No open conflicts: the team memory agrees with itself.' : `${open.length} open conflict${open.length === 1 ? '' : 's'}, most severe first.`;
}

function showResult(result: CallToolResult): void {
  const structured = result.structuredContent as ConflictsOutput | undefined;
  if (result.isError || !structured?.groups) {
    cards.replaceChildren();
    summary.textContent = textOf(result) || 'engram_conflicts returned nothing to show.';
    return;
  }
  render(structured);
}

app.ontoolresult = (result) => showResult(result);
app.onhostcontextchanged = (context) => applyContext(context);
refresh.addEventListener('click', () => {
  void (async () => {
    summary.textContent = 'Refreshing…';
    try {
      showResult(await app.callServerTool({ name: 'engram_conflicts', arguments: {} }));
    } catch (error) {
      summary.textContent = `Could not refresh: ${error instanceof Error ? error.message : String(error)}`;
    }
  })();
});

await app.connect();
applyContext(app.getHostContext());
