/**
 * Grouped retrieval. A query that arrives while another of its workspace, with the same filters,
 * is being answered waits, and is answered with the others that arrived meanwhile by one statement
 * (hybridCandidatesOf): planned once and run in one transaction for all their topics, instead of a
 * plan, a transaction and a round trip each. A query alone goes at once, as the plain statement.
 */
import { Batcher } from './batcher.ts';
import { perDatabase, type Database } from './database.ts';
import { hybridCandidatesOf, type Candidate, type RetrievalFilters, type RetrievalTopic } from './retrieval.ts';
import { forWorkspace } from './tenant.ts';

/** Most topics answered by one statement. */
export const QUERY_BATCH_LIMIT = 16;
/** Most statements in flight at once (of different workspaces or filters; the pool bounds them too). */
const QUERY_READERS = 64;
/**
 * Statements of one group in flight at once: two, so that a busy workspace's next queries are
 * being answered while the ones after them gather, instead of all waiting for one statement.
 */
const QUERY_READERS_PER_GROUP = 2;

interface Asked {
  workspaceId: string;
  filters: RetrievalFilters;
  topic: RetrievalTopic;
}

/** What makes two queries answerable together: the workspace and every filter. */
function groupKey(workspaceId: string, filters: RetrievalFilters): string {
  const { window } = filters;
  return [
    workspaceId,
    filters.model,
    filters.scope ?? '',
    filters.factType ?? '',
    filters.includeEphemeral,
    filters.depth,
    window.kind,
    window.kind === 'as_of' ? window.at.toISOString() : '',
  ].join('\u0000');
}

/** Grouped retrieval for one database (see the module comment). */
export class CandidateReader {
  readonly #batcher: Batcher<Asked, Candidate[]>;

  constructor(db: Database, options: { maxBatch?: number } = {}) {
    this.#batcher = new Batcher(
      (batch) => hybridCandidatesOf(forWorkspace(db, batch[0]!.workspaceId), batch[0]!.filters, batch.map((a) => a.topic)),
      { maxBatch: options.maxBatch ?? QUERY_BATCH_LIMIT, maxInFlight: QUERY_READERS, perKey: QUERY_READERS_PER_GROUP },
    );
  }

  /** The hybrid candidates of a topic (see hybridCandidates), with whatever else of its group is waiting. */
  read(workspaceId: string, filters: RetrievalFilters, topic: RetrievalTopic): Promise<Candidate[]> {
    return this.#batcher.submit(groupKey(workspaceId, filters), { workspaceId, filters, topic });
  }

  /** Statements run so far (for tests and diagnostics). */
  get batches(): number {
    return this.#batcher.batches;
  }
}

/** The grouped-retrieval reader of a database handle (one per handle, made on first use). */
export const candidateReaderOf = perDatabase((db) => new CandidateReader(db));
