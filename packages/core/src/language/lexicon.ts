/**
 * Folding words into concepts, so that differently worded facts about one thing share their
 * anchors: lemmas from the NLP reader, Porter stems for derivations ("coordination" /
 * "coordinate"), and a small table of synonyms for the things teams state values about
 * ("kept" / "retention", "people" / "engineers", "answers in" / "latency").
 */

/** Lemma (or lowercase word) → concept. */
const CONCEPTS: Record<string, string> = {};
function fold(concept: string, ...words: string[]) {
  for (const w of [concept, ...words]) CONCEPTS[w] = concept;
}

// Quantities teams state.
fold('latency', 'latency', 'response-time', 'responsetime', 'rtt');
fold('retention', 'retain', 'retained');
fold('ttl', 'expiry', 'expiration', 'expire', 'expires', 'lifetime', 'validity', 'time-to-live', 'timeout', 'time-out');
fold('max', 'maximum', 'limit', 'cap', 'ceiling', 'quota', 'allowance', 'threshold', 'upto');
fold('min', 'minimum', 'floor');
fold('retry', 'retries', 'attempt', 'try', 'tries', 'redelivery', 'redeliver', 'reattempt');
fold('interval', 'frequency', 'cadence', 'every', 'period');
fold('person', 'people', 'persons', 'engineer', 'developer', 'dev', 'devs', 'member', 'staff', 'employee', 'headcount', 'folk', 'folks', 'fte', 'hire', 'teammate', 'contributor', 'maintainer');
fold('cost', 'price', 'fee', 'pricing', 'rate-card');
fold('spend', 'spending', 'expense', 'expenditure', 'outlay');
fold('budget', 'allocation', 'allocate', 'allotment');
fold('deadline', 'due', 'due-date', 'duedate', 'eta', 'cutoff', 'cut-off');
fold('owner', 'own', 'owned', 'ownership', 'lead', 'led', 'manage', 'manager', 'maintain', 'responsible', 'dri', 'steward', 'run-by', 'in-charge', 'point-person', 'on-call', 'oncall');
fold('sell', 'sale', 'sales', 'sold');
fold('size', 'capacity', 'volume');
fold('score', 'grade', 'mark', 'result');
fold('telemetry', 'analytics', 'tracking', 'usage-data', 'usage-stats');
fold('test', 'tests', 'testing', 'spec', 'specs');
fold('e2e', 'end-to-end', 'endtoend');
fold('deploy', 'deployment', 'deploys', 'ship', 'shipping', 'release-to');
fold('database', 'db', 'datastore', 'data-store');
fold('environment', 'env');
fold('log', 'logs', 'logging');
fold('staging', 'stage', 'preprod', 'pre-prod');
fold('production', 'prod', 'live');
fold('repository', 'repo', 'repos');
fold('connection', 'conn', 'conns');
fold('replica', 'replicas', 'repl', 'instance', 'pod', 'node-count');

fold('plan', 'tier', 'tiers', 'plans');
fold('infrastructure', 'infra', 'infrastructur');
fold('certificate', 'cert', 'certs', 'certificates');
fold('owner', 'pager');

/** Words the table folds whole (hyphenated ones are not split into their parts). */
export const CONCEPT_WORDS: ReadonlySet<string> = new Set(Object.keys(CONCEPTS));

/** How a word reads as a concept: the synonym table, else its Porter stem (accents folded: "Hôtel" is "hotel"). */
export function conceptOf(lemma: string, stem: string): string {
  const found = CONCEPTS[lemma] ?? CONCEPTS[stem] ?? stem;
  return /[^ -~]/.test(found) ? found.normalize('NFD').replace(/\p{M}/gu, '') : found;
}

/**
 * Words that never anchor a claim by themselves: heads so general they only carry the subject
 * before them ("the platform team", "the search API"), words about the value rather than the
 * thing, and filler. A claim anchored only by these is not aligned by meaning.
 */
export const GENERIC_CONCEPTS = new Set([
  // Organisational and system heads.
  'team', 'squad', 'group', 'servic', 'api', 'app', 'applic', 'system', 'server', 'endpoint', 'modul', 'compon', 'tool',
  'project', 'platform-head', 'thing', 'stuff', 'part', 'piec', 'side', 'area', 'bit', 'way', 'kind', 'type', 'sort', 'lot',
  // About the value, not the thing.
  'valu', 'set', 'default', 'current', 'number', 'amount', 'total', 'level', 'figur', 'count', 'quantiti', 'option',
  'paramet', 'config', 'configur', 'measur', 'metric', 'stat', 'statist', 'estim', 'approxim', 'roughli', 'around',
  'about', 'exactli', 'precis', 'averag', 'mean', 'median', 'typic', 'usual', 'normal', 'overal', 'recent', 'recently',
  'new', 'old', 'latest', 'updat', 'inform', 'info', 'note', 'detail', 'time', 'moment', 'today', 'yesterday', 'now',
  'current', 'currentli', 'actual', 'actuali', 'realli', 'still', 'also', 'just', 'onli', 'even', 'alreadi', 'again',
  'singl', 'individu', 'ani', 'each', 'everi', 'whole', 'entir', 'baselin', 'relat', 'such', 'kind',
  // Verbs of being, having and doing that carry no meaning of their own.
  'be', 'have', 'do', 'get', 'make', 'go', 'use-verb', 'say', 'see', 'seem', 'becom', 'remain', 'stay', 'keep-verb',
  'includ', 'contain', 'involv', 'mention', 'state', 'note', 'report-verb', 'confirm', 'check', 'verifi', 'think', 'believ',
  'know', 'want', 'need', 'like', 'look', 'find', 'found', 'tell', 'told', 'ask', 'let', 'put', 'take', 'give',
  'show', 'mean-verb', 'seem', 'happen', 'come', 'well', 'much', 'mani', 'more', 'less', 'most', 'least', 'veri',
  'user', 'other', 'anoth', 'we', 'us', 'our', 'i', 'my', 'me', 'they', 'them', 'their', 'it', 'its', 'one', 'someon', 'someth', 'anyth',
]);

/** Statistic words: which figure of a distribution a value is. They qualify, they do not anchor. */
export const STATISTIC_QUALIFIERS: Record<string, string> = {
  average: 'typical', mean: 'typical', median: 'typical', typical: 'typical', typically: 'typical', usually: 'typical',
  p50: 'typical', p75: 'p75', p90: 'p90', p95: 'p95', p99: 'p99', p999: 'p999', peak: 'peak', worst: 'peak', best: 'best',
};

/** Words that bound a value from below or above ("at least 2", "capped at 10", "up to 5"). */
export const BOUNDS: Record<string, 'min' | 'max'> = {
  least: 'min', minimum: 'min', min: 'min', floor: 'min', fewer: 'max', most: 'max', maximum: 'max', max: 'max', cap: 'max',
  capped: 'max', ceiling: 'max', limit: 'max', limited: 'max', upto: 'max', larger: 'max', bigger: 'max', exceed: 'max',
  exceeds: 'max', above: 'max', longer: 'max', smaller: 'min', shorter: 'min', below: 'min',
};

/** Verbs that say a value changed (by lemma). A clause uses one as a change only in a change construction. */
export const CHANGE_VERBS = new Set([
  'raise', 'lower', 'increase', 'decrease', 'reduce', 'drop', 'cut', 'bump', 'grow', 'shrink', 'rise', 'fall', 'double',
  'halve', 'triple', 'move', 'switch', 'migrate', 'replace', 'swap', 'change', 'adjust', 'update', 'upgrade', 'downgrade',
  'extend', 'shorten', 'reschedule', 'postpone', 'delay', 'push', 'revise', 'revert', 'roll', 'become', 'reach',
  'improve', 'tighten', 'loosen', 'relax', 'expand', 'trim', 'promote', 'transfer', 'rename', 'retire', 'deprecate',
  'sunset', 'decommission', 'hand', 'adopt', 'bring', 'slash', 'boost', 'hike', 'lift', 'narrow', 'widen', 'scale',
  'climb', 'jump', 'tweak', 'set', 'reset', 'restore', 'flip', 'turn', 'toggle', 'enable', 'disable', 'redirect',
  'reassign', 'rotate', 'repoint', 'pin', 'modify', 'alter', 'amend', 'correct', 'fix', 'supersede', 'overhaul',
  'consolidate', 'split', 'merge', 'shift', 'go', 'take', 'drop-to', 'settle', 'finalize', 'finalise', 'confirm', 'pass',
  'slip', 'postpone', 'advance', 'relocate', 'transition', 'convert', 'port',
]);

/** Change verbs that say a change by themselves, whatever follows ("Marta replaced Tom"). */
export const SELF_EVIDENT_CHANGE_VERBS = new Set([
  'replace', 'switch', 'migrate', 'upgrade', 'downgrade', 'revert', 'supersede', 'reschedule', 'postpone', 'rename',
  'deprecate', 'decommission', 'sunset', 'retire', 'swap', 'reassign', 'transfer', 'overhaul', 'raise', 'lower',
  'increase', 'decrease', 'reduce', 'bump', 'double', 'halve', 'triple', 'extend', 'shorten', 'tighten', 'loosen',
  'slash', 'hike', 'boost', 'adjust', 'revise', 'amend', 'correct', 'modify', 'change', 'update',
]);

/** Words that say a change is only planned, proposed or underway. */
export const TENTATIVE_LEMMAS = new Set([
  'plan', 'intend', 'propose', 'proposal', 'consider', 'aim', 'hope', 'expect', 'want', 'wish', 'tentative',
  'tentatively', 'underway', 'wip', 'draft', 'rfc', 'pending', 'eventually', 'soon', 'upcoming', 'potentially',
  'possibly', 'maybe', 'perhaps', 'probably', 'likely', 'might', 'may', 'could', 'should', 'would', 'discuss', 'explore',
  'evaluate', 'investigate', 'pilot', 'trial', 'prototype', 'experiment', 'idea', 'suggest', 'recommend',
]);

/** Words a deletion request is made of: "forget", "drop", "disregard" ... and what it names: "the note about ...". */
export const DELETION_VERBS = new Set(['forget', 'disregard', 'ignore', 'drop', 'delete', 'remove', 'scrap', 'discard', 'purge', 'strike', 'erase', 'scratch', 'retract', 'withdraw', 'clear']);
export const MEMORY_NOUNS = new Set(['note', 'fact', 'entry', 'memory', 'mention', 'line', 'bit', 'item', 'record', 'claim', 'info', 'information', 'stuff', 'everything', 'anything', 'part', 'comment', 'reference', 'remark', 'statement', 'what', 'tip', 'advice', 'hint', 'instruction', 'guidance', 'workaround', 'trick', 'reminder', 'caveat']);

/** Words that say something is gone ("the legacy cron host is gone"). */
export const GONE_WORDS = new Set(['gone', 'dead', 'decommissioned', 'removed', 'deleted', 'retired', 'dropped', 'shut', 'torn', 'turned', 'killed', 'sunset', 'sunsetted', 'deprecated', 'obsolete', 'defunct', 'terminated', 'destroyed', 'deprovisioned', 'archived', 'replaced', 'wrong', 'incorrect', 'outdated']);
