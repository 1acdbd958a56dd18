/**
 * How a detection run reads facts: straight from the database, or through a worker's memory of
 * what its earlier runs read.
 *
 * Under steady load a workspace's runs follow each other every few seconds and read the same facts
 * again: the crowded slots' newest. At 10,000 facts and 10 clients in one workspace (npm run bench
 * -- --concurrency) each run read 13,000-18,000 fact rows, 9,000-11,400 of them distinct, and 90-100%
 * of those the run before had read too. Reading a fact again costs its row (the entities' JSON,
 * parsed) and what the tiers read off it (claims, statements: a fact object keeps them, see
 * per-fact.ts). What a stored fact says — its text, scope, agent, time, entities and match keys —
 * does not change; a re-extraction raises its `extractor_version`, and an erased fact is never read.
 * So a run through the memory reads only the *states* of the facts it needs (window, who retired it,
 * durability, version), takes each fact it holds at that version with its state brought up to date,
 * and reads whole rows only of the rest.
 *
 * A memory belongs to one worker, which runs one run at a time; a workspace's runs are never
 * concurrent anywhere (the run lease), so no other run changes a held fact's state meanwhile.
 * Bounded: when a run ends, the workspace's facts that no run read for `idleMs` are forgotten, then
 * beyond `maxFacts` the facts the run did not read, then its own; a workspace none of whose runs read
 * anything for `idleMs` is forgotten whole ({@link FactMemory.forgetIdle}, which the worker calls as
 * it polls), so the memory is given back once the load stops. (Forgetting what the last run or two
 * did not read was not enough: in the drain bench's runs of 150, a few runs touching other slots
 * made the next one read its 10,000 facts again.)
 */
import v8 from 'node:v8';
import { factsByIds, factsMatching, factStatesByIds, factStatesMatching, type DetectorFact, type FactState, type TenantDb } from '@engram/db';

/** How one run reads facts. */
export interface RunReads {
  /** The facts with these ids (any durability, any window). */
  byIds(ids: readonly string[]): Promise<DetectorFact[]>;
  /** Durable, unerased facts sharing a match key with these, the newest `perKey` for each key. */
  matching(keys: readonly string[], perKey: number): Promise<DetectorFact[]>;
  /** The run is over (its facts may be forgotten). */
  end(): void;
}

/** Reads without memory: every fact's row, every time. */
export const directReads = (tenant: TenantDb): RunReads => ({
  byIds: (ids) => factsByIds(tenant, ids),
  matching: (keys, perKey) => factsMatching(tenant, keys, perKey),
  end: () => {},
});

interface Held {
  fact: DetectorFact;
  /** The number of the workspace's last run that read it. */
  run: number;
  /** When a run last read it (ms since the epoch). */
  usedAt: number;
}

interface WorkspaceMemory {
  facts: Map<string, Held>;
  /** Runs begun over this workspace. */
  runs: number;
  /** When a run last read through it (ms since the epoch). */
  usedAt: number;
}

export interface FactMemoryOptions {
  /** Most facts held for all workspaces together, once a run ends. */
  maxFacts: number;
  /** A workspace with no run for this long is forgotten. */
  idleMs: number;
  /** The clock (tests). */
  now?: () => number;
}

/** The held fact, its state as read now, marked read by this run. */
function refresh(held: Held, state: FactState, run: number, now: number): DetectorFact {
  const fact = held.fact;
  fact.valid_until = state.valid_until;
  fact.retired_by = state.retired_by;
  fact.retired_for_fact_id = state.retired_for_fact_id;
  fact.durability = state.durability;
  held.run = run;
  held.usedAt = now;
  return fact;
}

/**
 * What a held fact takes of the heap, with what the tiers read off it: 2.2 KB of row, 2.7 of claims,
 * 1.9 of statements (6,000 bench facts, heap after gc(); README, Performance), and the smaller readings.
 */
const HELD_FACT_BYTES = 8 * 1024;

/**
 * A worker's memory takes at most a tenth of the heap V8 may grow to (30 MiB of the image's 304 MiB
 * limit: 3,891 facts). A fifth held 7,782 facts, and the embedded database's server (whose database
 * lives in the same process) peaked at 440 MiB under 200 clients, against the 400 it must stay under.
 */
export const defaultMemoryFacts = (): number => Math.floor(v8.getHeapStatistics().heap_size_limit / 10 / HELD_FACT_BYTES);

/** Rows read at once when a run needs facts it does not hold. */
const ROWS_AT_ONCE = 1_000;

export class FactMemory {
  readonly #workspaces = new Map<string, WorkspaceMemory>();
  readonly #options: Required<FactMemoryOptions>;
  /** Row reads and reuses since the memory was made (tests and benches). */
  readonly counts = { rowsRead: 0, reused: 0 };

  constructor(options: FactMemoryOptions) {
    this.#options = { now: Date.now, ...options };
  }

  /** Facts held now, all workspaces together. */
  get size(): number {
    let size = 0;
    for (const w of this.#workspaces.values()) size += w.facts.size;
    return size;
  }

  /** How a run over the tenant's workspace reads facts through this memory. */
  forRun(tenant: TenantDb): RunReads {
    const now = this.#options.now();
    let memory = this.#workspaces.get(tenant.workspaceId);
    if (!memory) this.#workspaces.set(tenant.workspaceId, (memory = { facts: new Map(), runs: 0, usedAt: now }));
    const workspace = memory;
    const run = ++workspace.runs;
    workspace.usedAt = now;
    // Rows this run is reading now: a fact two of its reads need at once (a trigger and the facts
    // its keys find) is read once, and is one object.
    const reading = new Map<string, Promise<DetectorFact | undefined>>();
    const take = async (states: FactState[]): Promise<DetectorFact[]> => {
      const facts: DetectorFact[] = [];
      const missing: string[] = [];
      const pending: Promise<DetectorFact | undefined>[] = [];
      const now = this.#options.now();
      for (const state of states) {
        const held = workspace.facts.get(state.id);
        const inFlight = reading.get(state.id);
        if (held && held.fact.extractor_version === state.extractor_version) facts.push(refresh(held, state, run, now));
        else if (inFlight) pending.push(inFlight);
        else missing.push(state.id);
      }
      this.counts.reused += facts.length;
      for (let at = 0; at < missing.length; at += ROWS_AT_ONCE) {
        const ids = missing.slice(at, at + ROWS_AT_ONCE);
        const rows = factsByIds(tenant, ids).then((found) => {
          this.counts.rowsRead += found.length;
          for (const fact of found) workspace.facts.set(fact.id, { fact, run, usedAt: now });
          return new Map(found.map((f) => [f.id, f]));
        });
        for (const id of ids) reading.set(id, rows.then((byId) => byId.get(id)));
        pending.push(...ids.map((id) => reading.get(id)!));
      }
      for (const fact of await Promise.all(pending)) if (fact) facts.push(fact);
      for (const id of missing) reading.delete(id);
      workspace.usedAt = now;
      return facts;
    };
    return {
      byIds: async (ids) => take(await factStatesByIds(tenant, ids)),
      matching: async (keys, perKey) => take(await factStatesMatching(tenant, keys, perKey)),
      end: () => this.#endRun(workspace, run),
    };
  }

  /** Forgets the workspaces no run has read through for `idleMs`. */
  forgetIdle(): void {
    const before = this.#options.now() - this.#options.idleMs;
    for (const [id, memory] of this.#workspaces) if (memory.usedAt <= before) this.#workspaces.delete(id);
  }

  /** Forgets what no run read for `idleMs`, then (beyond the bound) what the run itself did not read, then the run's own. */
  #endRun(workspace: WorkspaceMemory, run: number): void {
    const before = this.#options.now() - this.#options.idleMs;
    for (const [id, held] of workspace.facts) if (held.usedAt <= before) workspace.facts.delete(id);
    let excess = this.size - this.#options.maxFacts;
    if (excess <= 0) return;
    // Other workspaces' facts first, the longest unused first; then this workspace's that an earlier
    // run read; then the run's own. Each in the order it was first read.
    const others = [...this.#workspaces.values()].filter((w) => w !== workspace).sort((a, b) => a.usedAt - b.usedAt);
    const passes: [WorkspaceMemory, (held: Held) => boolean][] = [
      ...others.map((w): [WorkspaceMemory, (held: Held) => boolean] => [w, () => true]),
      [workspace, (held) => held.run < run],
      [workspace, () => true],
    ];
    for (const [memory, forget] of passes) {
      for (const [id, held] of memory.facts) {
        if (excess <= 0) return;
        if (!forget(held)) continue;
        memory.facts.delete(id);
        excess--;
      }
    }
  }
}
