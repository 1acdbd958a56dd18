/**
 * When two facts' claims are about one thing, and when they disagree. Precision first: the same measure and kind of
 * value, qualifiers that meet, an anchor shared beyond a common word, and nothing named on both sides the other never mentions.
 */
import type { DetectorFact, FactEntity } from '@engram/db';
import { COMPONENT_LIKE, familyOf, isFileName, isPath, ISSUE_KEYS, MEASURE_VOCABULARY, type ClaimEntity, type StatementEntity } from './claims.ts';
import measuresData from './data/measures.json' with { type: 'json' };
import { GENERIC, SERIES_NOUNS, SETTING_PLACES, TECHNOLOGIES, TIME_NOUNS } from './lexicon.ts';

/** A claim as detection reads it: with its fact, the fact's view and when it was committed (in ms). */
export interface Claim extends ClaimEntity {
  fact: DetectorFact; view: FactView; at: number;
  /** Within the fact, which claim it is. */
  index: number;
  /** Its anchors that are neither generic words nor words of its measure (and those in the singular), the words of its components, and the dated period it is said of (see periodOf). */
  specificAnchors: readonly string[]; anchorForms: ReadonlySet<string>; parts: ReadonlySet<string>; period: string | undefined;
}

export interface Statement extends StatementEntity { fact: DetectorFact }

/** A fact as detection reads it, once per fact object. */
export interface FactView {
  claims: Claim[]; statements: Statement[]; deletion: string[] | null; dependencies: { target: string[]; ends: boolean }[]; mentions: ReadonlySet<string>;
  /** The words of its scope ("payments/webhooks" → payments, payment, webhooks, webhook), and its segments. */
  scopeWords: ReadonlySet<string>; scopeSegments: readonly string[];
  /** What it says changed (clauses announcing a change or a correction), and what ended or left. */
  changed: ReadonlySet<string>; ended: ReadonlySet<string>;
  /** Named things it says are gone. */
  gone: readonly string[];
  /** Some clause is a plan, work in progress or a condition; a plan or work in progress. */
  hedged: boolean; planned: boolean;
  /**
   * It is an entry of a log or a report ("Rollout log: ...", "On-call week of May 4: ..."): a label, then claims that are all
   * records of what held then. A later change outdates none of it, nor does a thing it names going away.
   */
  logEntry: boolean;
  /** A main clause announces a change or a correction ("X is now Y"). */
  announces: boolean;
  /** Whether it mentions a concept, as `mentions` answered (a run asks each fact about the same words again and again). */
  mentioned: Map<string, boolean>;
  /** The technology kinds it states a product of ("runs MySQL": database), and those its words or scope name ("the DB"). */
  technologyKinds: ReadonlySet<string>; kindsNamed: ReadonlySet<string>;
  /** The tracked items its text names: issue keys ("AUD-311": an upper-case project key and a number of at least two digits) and numbered items of a series ("sprint 41"). */
  items: readonly string[];
  /** The HTTP endpoints it names, by method and path ("POST /v2/kiosk-orders"). */
  endpoints: readonly string[];
}

/** A config file named by a joined name and its format ("rust-toolchain.toml", "feature_flags.yaml"). */
const CONFIG_FILE = /^([a-z0-9]+(?:[-_][a-z0-9]+)+)\.(?:toml|ya?ml|json|ini|conf|cfg|env|lock)$/;

/** A numbered item of a series ("Sprint 41", "phase 2"). */
const SERIES_ITEM = new RegExp(`\\b(${SERIES_NOUNS.join('|')})\\s+#?(\\d{1,4})\\b`, 'gi');

const views = new WeakMap<DetectorFact, FactView>();
/** A word in the singular, when it reads as a plural ("payouts" → payout; not "status", "class"). */
export const singular = (w: string) => (w.length > 3 && w.endsWith('s') && !/(?:ss|us|is)$/.test(w) ? w.slice(0, -1) : w);

/** How detection reads a fact (remembered per fact object: a run compares each fact with many). */
export function viewOf(fact: DetectorFact): FactView {
  let view = views.get(fact);
  if (view) return view;
  const claimEntities: ClaimEntity[] = [];
  const statements: Statement[] = [];
  let deletion: string[] | null = null;
  const dependencies: FactView['dependencies'] = [];
  let said: Extract<FactEntity, { type: 'mentions' }> | undefined;
  for (const e of fact.entities) {
    if (e.type === 'claim') claimEntities.push(e);
    else if (e.type === 'statement') statements.push({ ...e, fact });
    else if (e.type === 'deletion') deletion = e.target;
    else if (e.type === 'dependency') dependencies.push({ target: e.target, ends: e.ends === true });
    else if (e.type === 'mentions') said = e;
  }
  const mentions = said?.value ?? [];
  const scopeWords = new Set(fact.scope.toLowerCase().split(/[/_.-]+/).flatMap((w) => [w, singular(w)]));
  const claims: Claim[] = [];
  view = {
    claims, statements, deletion, dependencies, scopeWords, scopeSegments: fact.scope.toLowerCase().split('/'),
    mentions: new Set([...mentions, ...mentions.map(singular)]),
    changed: new Set(said?.changed), ended: new Set(said?.ended), gone: said?.gone ?? [], hedged: said?.hedged === true, planned: said?.planned === true, announces: said?.announces === true,
    logEntry: /^[^:.;]{1,60}:\s/.test(fact.content) && claimEntities.length > 0 && claimEntities.every((c) => c.mode === 'event'),
    mentioned: new Map(),
    technologyKinds: new Set(claimEntities.flatMap((c) => (c.kind === 'technology' ? [c.measure] : []))),
    kindsNamed: new Set([...mentions, ...mentions.map(singular), ...scopeWords].flatMap((w) => TECHNOLOGY_KIND_OF_WORD.get(w) ?? [])),
    items: [...(fact.content.match(ISSUE_KEYS) ?? []), ...[...fact.content.matchAll(SERIES_ITEM)].map((m) => `${m[1]!.toLowerCase()} ${m[2]}`)],
    endpoints: [...fact.content.matchAll(/\b(GET|POST|PUT|PATCH|DELETE)\s+`?(\/[\w\-./{}:]*)/g)].map((m) => `${m[1]} ${m[2]!.replace(/\/$/, '')}`),
  };
  const at = fact.committed_at.getTime();
  for (const e of claimEntities) {
    const parts = new Set(e.components.flatMap((x) => x.split(/[-_.:]/)));
    // A word of the claim's own measure ("pipelines" of the CI system) says what is measured, not what it is about.
    const specificAnchors = e.anchors.filter((a) => specific(a) && !MEASURE_VOCABULARY.get(e.measure)?.has(a));
    const anchorForms = new Set([...specificAnchors, ...specificAnchors.map(singular)]);
    claims.push({ ...e, fact, view, at, index: claims.length, specificAnchors, anchorForms, parts, period: undefined });
  }
  for (const c of claims) c.period = periodOf(c, view);
  views.set(fact, view);
  return view;
}

/** Does the fact mention this concept (a component counts as mentioned when all its words are)? */
export function mentions(view: FactView, concept: string): boolean {
  let known = view.mentioned.get(concept);
  if (known === undefined) view.mentioned.set(concept, (known = mentionsOnce(view, concept)));
  return known;
}

function mentionsOnce(view: FactView, concept: string): boolean {
  if (view.mentions.has(concept) || view.mentions.has(singular(concept))) return true;
  // A package coordinate ("io.acme:billing-sdk") is mentioned by its artifact's name, a config file
  // ("rust-toolchain.toml") by its joined name ("rust-toolchain"), and that name by the file.
  const coordinate = /^[\w.-]+\.[\w-]+:([\w.-]+)$/.exec(concept);
  if (coordinate) return mentions(view, coordinate[1]!);
  const file = CONFIG_FILE.exec(concept);
  if (file && (view.mentions.has(file[1]!) || view.mentions.has(concept))) return true;
  // A file by a path to it ("depots.json" by "fixtures/depots.json").
  if (!concept.includes('/') && isFileName(concept) && [...view.mentions].some((m) => m.endsWith(`/${concept}`))) return true;
  // A directory is mentioned by the component it holds ("libs/quote-sdk" by "quote-sdk"), when that name is a joined one.
  const folder = /^[\w.@-]+(?:\/[\w.@-]+)*\/([a-z][\w]*[-_][\w-]*)\/?$/.exec(concept)?.[1];
  if (folder && mentions(view, folder)) return true;
  // A component its words name, in the text or the fact's scope ("billing-api" in "the billing API", "auth-service" in scope auth);
  // every part counts, its number too ("pg-billing-01" is not "pg-billing-02").
  const parts = concept.split(/[-_.:/]+/).filter((p) => p.length >= 1 && p !== 'v');
  // A scope names a component only when none of its segments is another one ("devex/flag-api" does not name feature-api).
  const scope = view.scopeSegments.some((seg) => /[-_.]/.test(seg) && seg !== concept) ? new Set<string>() : view.scopeWords;
  // A part written short ("idem-key") is named by the word it abbreviates ("idempotency").
  const abbreviates = (p: string) => p.length >= 4 && /^[a-z]+$/.test(p) && [...view.mentions].some((m) => m.length > p.length && m.startsWith(p) && /^[a-z]+$/.test(m));
  const named = (p: string) => view.mentions.has(p) || view.mentions.has(singular(p)) || scope.has(p) || (GENERIC.has(p) && !/\d/.test(concept)) || abbreviates(p);
  return parts.length > 1 && parts.every(named) && parts.some((p) => !GENERIC.has(p));
}

const specific = (a: string) => !GENERIC.has(a);

/**
 * Does `newer` speak to everything `older` states (each claim's thing, or all its values; each other statement)? Only
 * then can it retire the older whole: a fact holding several claims is never retired because one of them changed.
 */
export function covers(newer: DetectorFact, older: DetectorFact): boolean {
  const mine = viewOf(newer);
  const theirs = viewOf(older);
  const claimed = new Set(theirs.claims.filter((c) => c.values.length > 0).map((c) => c.clause));
  for (const c of theirs.claims) if (!mine.claims.some((d) => sameThing(c, d)) && !c.values.every((v) => mentions(mine, v))) return false;
  for (const st of theirs.statements) {
    if (claimed.has(st.clause) || st.object.length === 0) continue;
    if (![...st.subject, ...st.object].filter(specific).every((x) => mentions(mine, x))) return false;
  }
  return true;
}

/** One environment, or an environment and one of its regions ("prod", "prod-us"). */
export const sameEnvironment = (a: string, b: string) => a === b || a.startsWith(`${b}-`) || b.startsWith(`${a}-`);
/** One environment, or none on one side. */
const envsMeet = (a: ClaimEntity, b: ClaimEntity) => !a.env || !b.env || sameEnvironment(a.env, b.env);

/** Do the two claims' qualifiers meet: the same environment, statistic, bound and window, or none on one side (a p99 and a p50 do not)? */
const qualifiersMeet = (a: ClaimEntity, b: ClaimEntity) => envsMeet(a, b) && (!a.per || !b.per || a.per === b.per) && (!a.toward || !b.toward || a.toward === b.toward) && (a.stat ?? 'p50') === (b.stat ?? 'p50') &&
  (!a.extreme || !b.extreme || a.extreme === b.extreme) && (!a.bound || !b.bound || a.bound === b.bound) && (!a.offset || !b.offset || a.offset === b.offset) &&
  (!a.window || !b.window || a.window === b.window);

/** The date of the period a claim's clause is said of ("Week of 2026-10-12: ..."): a date beside a noun of time, other than the claim's own. */
function periodOf(c: Claim, view: FactView): string | undefined {
  // A date is the period's own value, not said of one ("the sprint is due April 1" against "due April 5").
  if (c.kind === 'date') return undefined;
  return view.claims.find((d) => d.clause === c.clause && d.kind === 'date' && !d.mode && d.anchors.some((x) => TIME_NOUNS.has(x)))?.values[0];
}

/** Are two claims about one thing (see the module's header)? */
export function sameThing(a: Claim, b: Claim): boolean {
  // Values written with one setting's key ("`POOL_MAX=20`" / "`POOL_MAX` is 40") in one scope and environment (or with none
  // said on one side) are that setting's, whatever measure the words around them suggest, unless either fact names a thing
  // the other does not (the `reporting` role's `lock_timeout` is not the app's; each service sets its own `db_pool_max`).
  if (a.setting && a.setting === b.setting && a.fact.scope === b.fact.scope) {
    const own = (x: Claim, other: FactView) => [...x.components, ...x.specificAnchors].filter((w) => !mentions(other, w) && !other.scopeWords.has(w) && !isFileName(w) && !SETTING_PLACES.has(w));
    return familyOf(a.kind) === familyOf(b.kind) && envsMeet(a, b) && own(a, b.view).length === 0 && own(b, a.view).length === 0;
  }
  if ((familyOf(a.kind) !== familyOf(b.kind) && !holderKinds(a, b)) || a.measure !== b.measure || !qualifiersMeet(a, b)) return false;
  // A share no measure word names ("62% of requests are polls") is a share of what its own words say: the same only of one component.
  if (a.kind === 'percentage' && a.measure === '' && !(a.components.length > 0 && a.components.every((c) => b.components.includes(c)))) return false;
  // A window of the day ("00:00–14:00") and a moment of it ("at 20:00") are two things: what is open then, what happens then.
  if (a.kind === 'time' && b.kind === 'time' && a.values.some(isWindow) !== b.values.some(isWindow)) return false;
  // A date of one tracked item is not one of another (SEC-12's deadline, RFC-7's review), whatever both call it.
  if (a.kind === 'date' && namesOtherItems(a.view, b.view)) return false;
  // A version of an unnamed product compares with nothing.
  if (a.kind === 'version' && (!a.of || !b.of || a.of !== b.of)) return false;
  const [va, vb] = [a.view, b.view];
  // Named components must be the same ones: "billing-api" and "billing-api → ledger-api" are two things.
  // A one-word component may be the other fact's scope ("Checkout retries ..." in scope checkout/api).
  const met = (c: string, view: FactView) => mentions(view, c) || (!COMPONENT_LIKE.test(c) && view.scopeWords.has(c));
  // Beside a component both name, one is met by its last word ("billing-api's timeout to ledger-writer" / "billing-api ... the writer").
  const short = (c: string, x: Claim, other: Claim) => {
    if (!x.components.some((o) => o !== c && other.components.includes(o))) return false;
    const last = /^[a-z]+-([a-z]{4,})$/.exec(c)?.[1];
    return last !== undefined && !GENERIC.has(last) && other.view.mentions.has(last);
  };
  // Beside a component both name, a config file one names is where it is set, not another thing ("transcode-worker in `values-prod.yaml`").
  const file = (c: string, x: Claim, other: Claim) => isFileName(c) && x.components.some((o) => o !== c && !isFileName(o) && other.components.includes(o));
  const unmet = (c: string, x: Claim, other: Claim) => !met(c, other.view) && !short(c, x, other) && !file(c, x, other);
  if (a.components.some((c) => unmet(c, a, b)) || b.components.some((c) => unmet(c, b, a))) return false;
  // Two siblings, one on each side, are two things however their words meet ("log-worker" / "promo-worker").
  if (siblings(a, b)) return false;
  // Said of two dated periods ("week of 10-12: Ana on call" / "10-26 week: Ben on call"): two things.
  if (a.period && b.period && a.period !== b.period) return false;
  // A noun narrowing one side's measure ("session timeout") must be named by the other fact.
  if ((a.modifier && !meets(vb, a.modifier, va)) || (b.modifier && !meets(va, b.modifier, vb))) return false;
  // A version is of its product: within one scope, what else the clause names does not make it another thing, unless
  // each fact names a path of its own, anywhere in it ("apps/shop/.nvmrc" and "apps/blog/.nvmrc" pin two apps' versions;
  // "runners of `acme/web`" and "mobile CI (in `acme/mobile`)" are two repositories' runners).
  const ownPath = (x: Claim, other: FactView) => [...x.anchors, ...x.components, ...x.view.mentions].some((p) => isPath(p) && !mentions(other, p));
  if (a.kind === 'version' && a.fact.scope === b.fact.scope) return !(ownPath(a, vb) && ownPath(b, va));
  // In two scopes, a product's version is of two installs when each fact names a thing of its own ("`orders-db`: Postgres
  // 15" / "Postgres 16 on `ledger-db`").
  const namedIn = (v: FactView) => [...v.claims.flatMap((c) => c.components), ...v.statements.flatMap((s) => [...s.subject, ...s.object].filter((w) => COMPONENT_LIKE.test(w)))];
  const ownThing = (x: Claim, other: FactView) => namedIn(x.view).some((k) => k !== x.of && !mentions(other, k));
  if (a.kind === 'version' && ownThing(a, vb) && ownThing(b, va)) return false;
  // Adjectives tell two things apart only against each other ("public API" / "internal API"), not against none.
  if (a.qualities?.length && b.qualities?.length && !a.qualities.some((q) => b.qualities!.includes(q))) return false;
  const [anchorsA, anchorsB] = [a.specificAnchors, b.specificAnchors];
  const shared = anchorsA.filter((x) => b.anchorForms.has(x) || anchorsB.includes(singular(x)));
  // What one names that the other fact never mentions, nor its scope.
  // The words of the other side's component ("search indexer" against search-indexer) are that component.
  const [partsA, partsB] = [a.parts, b.parts];
  const partOf = (x: string, parts: ReadonlySet<string>) => x.split(' ').every((w) => parts.has(w) || [...parts].some((p) => p.length >= 4 && w.startsWith(p)));
  // Where a value is set (a file, "the helm values") is no thing of its own.
  // Nor, beside a product, is another product its fact states ("talks to MySQL through Knex": the query builder's database).
  const otherProduct = (x: Claim, w: string) => x.kind === 'technology' && (kindIn(x.view, w) ?? x.measure) !== x.measure;
  // (An API path is met by the resource it ends in: `/v1/invoices` by "invoice"; a directory by what it holds: `services/search` by "search".)
  const resource = (w: string, view: FactView) => (/^\/[\w/{}:-]*[a-z]$/.test(w) || /^[a-z][\w-]*\/[a-z][\w-]*$/.test(w)) && view.mentions.has(singular(w.split('/').at(-1)!));
  const namesOwn = (x: Claim, y: Claim) => x.specificAnchors.some((w) => !SETTING_PLACES.has(w) && !y.view.scopeWords.has(w) && !y.view.scopeWords.has(singular(w)) &&
    !bareFileName(w) && !meets(y.view, w, x.view) && !partOf(w, y.parts) && !short(w, x, y) && !otherProduct(x, w) && !resource(w, y.view));
  const [ownA, ownB] = [namesOwn(a, b), namesOwn(b, a)];
  const namesNothing = (x: Claim) => x.specificAnchors.length === 0 && x.components.length === 0;
  const sharedComponent = a.components.length > 0 && a.components.some((c) => b.components.includes(c));
  // One side naming more is the same thing only when they share two things besides components ("App logs in Loki" / "Loki's log chunks").
  const sharedWords = shared.filter((x) => !a.components.includes(x) && !b.components.includes(x)).length;
  // Not a setting of a kind one scope holds once (a database scope's default transaction level): what else one names does not make two.
  const oneSetting = a.kind === 'technology' && a.fact.scope === b.fact.scope && a.components.length + b.components.length === 0 && sharedWords >= 1;
  // Each names a thing of its own the other never mentions: two things.
  if (ownA && ownB) return false;
  // (A version one side says plainly is weighed below, by what the other names.)
  const plainVersion = a.kind === 'version' && (namesNothing(a) || namesNothing(b));
  if ((ownA || ownB) && sharedWords < 2 && !oneSetting && !plainVersion) return false;
  // No measure word on either side: the things named must be the same, not merely overlap.
  if (a.measure === '' && (ownA || ownB)) return false;
  if (shared.length > 0 || sharedComponent || anchorsA.some((x) => partsB.has(x)) || anchorsB.some((x) => partsA.has(x))) return true;
  // Each names only what the other fact names too, in other words ("payouts" / "payout", "the DB" / "MySQL"); a version,
  // also when one names a component the other fact mentions and nothing else of its own ("`pg-main`, which is on 14" / "pg-main: 16.2").
  if (!ownA && !ownB && ((anchorsA.length > 0 && anchorsB.length > 0) || (a.kind === 'version' && a.components.length + b.components.length > 0))) return true;
  // Neither names anything: one thing when their scopes are one; one names nothing: when its scope names what the other does.
  // (What names nothing is about its fact's subject: two tracked items, none in common, are two subjects. A day or a time
  // that names nothing and no measure is only a moment, a bare figure only a figure: a scope holds many.)
  if (namesNothing(a) && namesNothing(b)) return a.fact.scope === b.fact.scope && !namesOtherItems(va, vb) && !(a.measure === '' && (CALENDAR.has(a.kind) || a.kind === 'number'));
  const [bare, named] = namesNothing(a) ? [a, b] : namesNothing(b) ? [b, a] : [null, null];
  if (!bare || !named) return false;
  // A version said plainly in one scope is of the install another scope names only by products and their kinds ("prod runs
  // MySQL 8.4" / "our database is RDS MySQL 8.0"): one install.
  if (a.kind === 'version') {
    const productKind = a.of === undefined ? undefined : TECHNOLOGIES.word(a.of)?.kind;
    const productWord = (x: string) => TECHNOLOGIES.word(x) !== undefined || (productKind !== undefined && TECHNOLOGY_KIND_OF_WORD.get(x) === productKind);
    const beyondScope = [...named.specificAnchors, ...named.components].filter((x) => !named.view.scopeWords.has(x) && !named.view.scopeWords.has(singular(x)));
    if (beyondScope.length > 0 && beyondScope.every(productWord)) return true;
  }
  // Everything the named side names is its scope's or said by its fact.
  const inScope = (x: string) => bare.view.scopeWords.has(x) || bare.view.scopeWords.has(singular(x));
  const things = [...named.specificAnchors, ...named.components];
  return things.some(inScope) && things.every((x) => inScope(x) || mentions(bare.view, x));
}

/** Do both facts name tracked items (issue keys), or HTTP endpoints (`GET /v2/kiosk-orders` is not `POST /v2/kiosk-orders`), none of them in common? */
export const namesOtherItems = (a: FactView, b: FactView) => disjoint(a.items, b.items) || disjoint(a.endpoints, b.endpoints);
const disjoint = (a: readonly string[], b: readonly string[]) => a.length > 0 && b.length > 0 && !a.some((x) => b.includes(x));

/** Does each name a joined name of one shape the other never writes ("log-worker" / "promo-worker": its role word, another name)? */
function siblings(a: Claim, b: Claim): boolean {
  const last = (c: string) => /^[a-z0-9]+(?:-[a-z0-9]+)*-([a-z]+)$/.exec(c)?.[1];
  return a.components.some((x) => last(x) !== undefined && !b.view.mentions.has(x) &&
    b.components.some((y) => y !== x && last(y) === last(x) && !a.view.mentions.has(y)));
}

/** The technology kind a fact gives a named product ("the ledger runs MySQL" → database). */
const kindIn = (view: FactView, word: string) => view.claims.find((c) => c.kind === 'technology' && c.values.includes(word))?.measure;

/** Does `view` name what `word` (of the fact `own`) names: the word itself, or a product and its kind ("orders DB" / "orders MySQL")? */
function meets(view: FactView, word: string, own: FactView): boolean {
  if (mentions(view, word)) return true;
  const kind = TECHNOLOGY_KIND_OF_WORD.get(word);
  if (kind && view.technologyKinds.has(kind)) return true;
  const product = kindIn(own, word);
  // Its kind named by the other fact or by its scope ("Postgres backups" in a fact of scope infra/db).
  return product !== undefined && view.kindsNamed.has(product);
}

/**
 * Are two claims plausibly about one thing when one names the other's value as the one it replaces ("raised X from 20
 * to 40")? That old value is the link, so what they name need only overlap (a component, an anchor or a scope).
 */
export function relatedThing(a: Claim, b: Claim): boolean {
  if (familyOf(a.kind) !== familyOf(b.kind) || (a.measure && b.measure && a.measure !== b.measure) || !qualifiersMeet(a, b)) return false;
  if (a.kind === 'version' && a.of !== b.of) return false;
  const [va, vb] = [a.view, b.view];
  // Components must meet, and each naming a thing the other never mentions is two things: a TTL of `cache.hot` is not
  // one of `cache.cold` because both name `ttl_seconds`. Products are what a replacement names, not things of their own.
  const own = (x: Claim) => x.components.filter((c) => !isProduct(c));
  const unmet = (x: Claim, other: Claim, view: FactView) => own(x).filter((c) => !other.components.includes(c) && !mentions(view, c));
  if (own(a).length && own(b).length && unmet(a, b, vb).length === own(a).length) return false;
  if (thingsOf(unmet(a, b, vb)).length > 0 && thingsOf(unmet(b, a, va)).length > 0) return false;
  // Each sets a key the other never names: two settings (`WORKER_THREADS=8` is not `QUEUE_DEPTH` from 8).
  const keys = (x: Claim, other: Claim, view: FactView) => unmet(x, other, view).filter((c) => c.includes('_') && !c.includes('/'));
  if (keys(a, b, vb).length > 0 && keys(b, a, va).length > 0) return false;
  const named = (c: Claim) => [...c.anchors, ...c.components].filter(specific);
  if (named(a).some((x) => mentions(vb, x) || vb.scopeWords.has(x)) || named(b).some((x) => mentions(va, x) || va.scopeWords.has(x))) return true;
  // One names nothing ("replaced Fluent Bit with Vector"): its scope is what it is about.
  return (named(a).length === 0 || named(b).length === 0) && a.fact.scope === b.fact.scope;
}

/** Is the word or phrase a product's whole name ("s3", "app engine")? */
const isProduct = (c: string) => {
  const words = c.split(' ').map((w) => ({ lower: w, lemma: w }));
  return TECHNOLOGIES.at(words, 0)?.length === words.length;
};

/** The components that name a thing: not a setting's key (`ttl_seconds`, shared by many things) nor the file it is set in. */
export const thingsOf = (components: readonly string[]) => components.filter((c) => !c.includes('_') && !c.includes('/') && !isFileName(c));
/** A file named without its directory (".env.example", "values.yaml"): where a setting is written; a path's directories name where ("apps/shop/.nvmrc"). */
const bareFileName = (c: string) => !c.includes('/') && isFileName(c);

const HH_MM = /^(\d{2}:\d{2}(?:-\d{2}:\d{2})?)(?: (\w+))?$/;
/** A name no list knows said to take over a role ("ownership moved to <name>"): it may be a person's. */
export const takesOverRole = (c: ClaimEntity) => c.kind === 'name' && c.measure !== '' && (c.cue === 'change' || (c.previous?.length ?? 0) > 0);
/**
 * A person, and a name said to take over the person's role ("owner is Maren Holt" / "ownership moved to <name>"): whoever
 * holds it now. Not a name merely beside a person ("X belongs to Data Platform; Maren is the contact").
 */
const holderKinds = (a: ClaimEntity, b: ClaimEntity) => [a.kind, b.kind].sort().join() === 'name,person' && a.measure === b.measure && (takesOverRole(a) || takesOverRole(b));
/** Kinds of value that are a moment or a day. */
const CALENDAR = new Set(['date', 'time', 'weekday']);
/** A time of day that is a window ("09:00-17:00 utc"), not a moment. */
const isWindow = (v: string) => /^\d{2}:\d{2}-/.test(v);

/** Are two canonical values of one family the same value? */
export function sameValue(kind: string, x: string, y: string): boolean {
  if (x === y) return true;
  switch (familyOf(kind)) {
    case 'team':
    case 'person': {
      // "Dana" and "Dana Ortiz" are one person; so are "Dana O." and "Dana Ortiz".
      const [short, long] = x.length <= y.length ? [x, y] : [y, x];
      const [s, l] = [short.split(' '), long.split(' ')];
      const initialled = s.length === l.length && s.every((w, i) => w === l[i] || (/^\p{L}\.$/u.test(w) && l[i]!.startsWith(w[0]!)));
      return initialled || l.includes(short) || long.startsWith(`${short} `);
    }
    case 'time': {
      // A time without a zone is the same as one with.
      const [, tx, zx] = HH_MM.exec(x) ?? [];
      const [, ty, zy] = HH_MM.exec(y) ?? [];
      return tx !== undefined && tx === ty && (!zx || !zy || zx === zy);
    }
    case 'date':
      return (x.startsWith('--') || y.startsWith('--') || x.startsWith('-') || y.startsWith('-')) && x.slice(-5) === y.slice(-5);
    case 'version': {
      // A tag's variant ("3.12-slim") or a release line and a release in it ("16", "16.3"; "3.12", "3.12.4") are one version.
      const [bx, by] = [x.split('-')[0]!, y.split('-')[0]!];
      const [short, long] = bx.length <= by.length ? [bx, by] : [by, bx];
      return (bx === by && (x.includes('-') || y.includes('-'))) || long.startsWith(`${short}.`);
    }
    default: {
      const range = (v: string) => {
        const m = /^(-?[\d.]+)-([\d.]+)$/.exec(v);
        return m ? [Number(m[1]), Number(m[2])] : [Number(v.split(' ')[0]), Number(v.split(' ')[0])];
      };
      const [lx, hx] = range(x);
      const [ly, hy] = range(y);
      if (x.split(' ')[1] !== y.split(' ')[1]) return false; // money in two currencies
      // Equal, or one inside the other's range ("2-5 s" and "3 s").
      if ((lx! >= ly! && hx! <= hy!) || (ly! >= lx! && hy! <= hx!)) return true;
      // A figure converted between units ("2,000/min" is 33.333… per second) is the same however it was converted,
      // and the same as itself rounded ("~33 req/s").
      if (Math.abs(lx! - ly!) <= 1e-6 * Math.max(Math.abs(lx!), Math.abs(ly!))) return true;
      const places = (v: string) => /\.(\d+)/.exec(v.split(' ')[0]!)?.[1]?.length ?? 0;
      const [fine, coarse] = places(x) >= places(y) ? [lx!, y] : [ly!, x];
      // (Within 5% of it: a whole figure is no rounding of a third of one, "2/s" of 100 a minute.)
      const rough = Number(coarse.split(' ')[0]);
      return Math.max(places(x), places(y)) >= 4 && Number(fine.toFixed(places(coarse))) === rough && Math.abs(fine - rough) <= 0.05 * Math.abs(rough);
    }
  }
}

const overlap = (kind: string, xs: readonly string[], ys: readonly string[]) => xs.some((x) => ys.some((y) => sameValue(kind, x, y)));

/**
 * Do two claims about one thing disagree: no value in common, and no bound holding the other ("at least 2" / "3")?
 * A plan, a condition or a denial states no current value, so it disagrees with nothing.
 */
export function disagree(a: ClaimEntity, b: ClaimEntity): boolean {
  if (a.mode || b.mode || a.negated || b.negated || a.additive || b.additive || a.values.length === 0 || b.values.length === 0) return false;
  if (overlap(a.kind, a.values, b.values)) return false;
  return !withinBound(a, b) && !withinBound(b, a);
}

function withinBound(bound: ClaimEntity, value: ClaimEntity): boolean {
  // "at most 25 MB" holds of a value of 10 MB, not of a largest allowed of 10 MB.
  if (!bound.bound || value.bound || value.extreme) return false;
  const limits = bound.values.map((v) => Number(v.split(/[ -]/)[0]));
  return value.values.every((v) => {
    const n = Number(v.split(/[ -]/)[0]);
    return !Number.isNaN(n) && limits.every((l) => (bound.bound === 'min' ? n >= l : n <= l));
  });
}

/** Does `newer` name a value of `older` as the one it replaces, or as gone ("from 3 to 5", "dropped Sentry")? */
export const namesReplaced = (older: ClaimEntity, newer: ClaimEntity) => overlap(older.kind, older.values, newer.previous ?? []);

/** Concepts a statement names (its subject's and its object's). */
const conceptsOf = (s: StatementEntity) => new Set([...s.subject, ...s.object]);

/**
 * Does the denial `n` deny what `p` asserts: all it governs asserted (a kind by a product of it: "no ORM" / "uses
 * Prisma"), by the same act ("there is no X" denies any), of a subject `p`'s fact names too ("we" meets any)?
 */
export function denies(n: Statement, p: Statement): boolean {
  if (n.positive || !p.positive) return false;
  const theirs = conceptsOf(p);
  const asserted = (c: string) => theirs.has(c) || theirs.has(TECHNOLOGY_KIND_OF_WORD.get(c) ?? '\0');
  // "We don't use Flyway" denies whatever is done with Flyway ("migrations are applied with Flyway").
  // (The product's kind, which the denial names beside it, is not a thing used.)
  const named = n.target.filter((c) => !TECHNOLOGY_KINDS.has(c));
  const used = n.verb === 'use' && named.length > 0 && named.every((c) => p.uses?.includes(c));
  if (!used && !n.target.every(asserted)) return false;
  const byKind = n.target.some((c) => TECHNOLOGY_KIND_OF_WORD.has(c) && !theirs.has(c));
  if (n.verb !== 'exist' && n.verb !== p.verb && !byKind && !used) return false;
  const vn = viewOf(n.fact);
  const vp = viewOf(p.fact);
  if ((n.where?.length && !n.where.some((x) => mentions(vp, x))) || (n.env && p.env && !sameEnvironment(n.env, p.env))) return false;
  // A denial's subject that is its scope's own thing ("the mailer" in services/mailer) narrows nothing within the scope.
  const subjectN = n.subject.filter((x) => specific(x) && !(n.fact.scope === p.fact.scope && (vn.scopeWords.has(x) || vn.scopeSegments.includes(x))));
  const subjectP = p.subject.filter((x) => specific(x) && !n.target.includes(x));
  if (subjectN.length > 0 && !subjectN.some((x) => mentions(vp, x) || vp.scopeWords.has(x))) return false;
  if (subjectN.length > 0 && subjectP.length > 0 && !subjectP.some((x) => mentions(vn, x))) return false;
  return true;
}

/** The words that name a kind of technology ("queue", "cdn", "orm") → that kind; a word naming several ("database"), the first listed. */
/** The measures a technology's value takes: its kinds ("orm", "ci"), each with its words. */
const TECHNOLOGY_MEASURES = Object.entries(measuresData.measures).filter(([, m]) => m.kinds.includes('technology'));
const TECHNOLOGY_KINDS = new Set(TECHNOLOGY_MEASURES.map(([name]) => name));

export const TECHNOLOGY_KIND_OF_WORD = new Map<string, string>(
  TECHNOLOGY_MEASURES.flatMap(([name, m]) => m.words.filter((w) => !w.includes(' ')).map((w) => [w, name] as [string, string])).reverse(),
);
