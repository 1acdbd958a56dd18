/**
 * The language module: what a fact says, and when two facts are about one thing. `readFact` reads a fact once, at
 * commit, into the entities stored with it; the alignment (`viewOf`, `sameThing`, `disagree`, ...) compares what two
 * stored facts say. `matchKeysOf` and `probeKeysOf`: the keys a fact is stored under, and those it looks others up by.
 */
import type { FactEntity } from '@engram/db';
import { COMPONENT_LIKE, familyOf, readFactText } from './claims.ts';
import { GENERIC } from './lexicon.ts';
import { TECHNOLOGY_KIND_OF_WORD } from './align.ts';

export { covers, denies, disagree, mentions, relatedThing, namesReplaced, sameEnvironment, sameThing, sameValue, viewOf, type Claim, type FactView } from './align.ts';
export { EXTRACTOR_VERSION, familyOf, type ClaimEntity } from './claims.ts';
export { languageModelLoaded, languagePipelineStats, readText } from './reader.ts';
export { normalizeText } from './values.ts';

/** Reads a fact's text into what is stored with it (see claims.ts); a text it cannot read is stored with nothing read. */
export function readFact(content: string): FactEntity[] {
  try {
    return readFactText(content);
  } catch {
    return [];
  }
}

/** Reads one fact now, so the first commit after a start does not wait for the model to load (240-280 ms). */
export function warmFactReading(): void {
  readFact('The cache TTL is 30 seconds since the 2.1 release, down from 60.');
}

/** Kinds of value that identify one thing (a person, a product, an address): facts naming one can be found by it. */
const IDENTITIES = new Set(['technology', 'person', 'team', 'name', 'channel', 'email', 'url', 'path', 'region']);
/** Keys kept per group, so a long fact cannot flood the key index. */
const MAX_KEYS = 12;
const cap = (list: readonly string[]) => [...new Set(list)].slice(0, MAX_KEYS);
const top = (scope: string) => scope.split('/')[0]!.toLowerCase();

/**
 * Keys a fact is stored under (in `facts.match_keys`, indexed in `fact_keys`):
 * `c:<family>:<measure>@<anchor>` for what each claim measures and names (`#<scope>` for a claim
 * that names nothing), `v:<family>:<value>` for the people, products and addresses it names,
 * `pos:`/`neg:` for what it asserts or denies, `dep:` for what it depends on, `a:` for the things
 * it mentions (found by deletion requests and dependencies), `gone:` for the names it says are gone.
 */
export function matchKeysOf(entities: readonly FactEntity[], scope: string): string[] {
  const keys: string[] = [];
  for (const e of entities) {
    if (e.type === 'claim') {
      const k = `c:${familyOf(e.kind)}:${e.measure}`;
      const named = e.kind === 'version' ? [e.of ?? ''] : cap([...e.components, ...e.anchors]);
      keys.push(...(named.length ? named.map((a) => `${k}@${a}`) : [`${k}#${top(scope)}`]));
      if (IDENTITIES.has(e.kind)) for (const v of [...e.values, ...(e.previous ?? [])]) keys.push(`v:${familyOf(e.kind)}:${v}`);
    } else if (e.type === 'statement') {
      const prefix = e.positive ? 'pos' : 'neg';
      keys.push(...cap(e.positive ? [...e.target, ...e.subject, ...e.object] : e.target).filter((w) => !GENERIC.has(w)).map((w) => `${prefix}:${w}`));
    } else if (e.type === 'dependency') {
      keys.push(...e.target.map((w) => `dep:${w}`));
    } else if (e.type === 'mentions') {
      keys.push(...cap(e.value.filter((w) => /[a-z]/.test(w) && !GENERIC.has(w))).map((w) => `a:${w}`));
      keys.push(...(e.gone ?? []).map((g) => `gone:${g}`));
    }
  }
  return [...new Set(keys)].sort();
}

/** A name joined by punctuation (a file, a path, a service, a queue: `libs/geo-eta`, `rl-redis`), not a word. */
export const isJoinedName = (w: string) => COMPONENT_LIKE.test(w) && /[a-z]/.test(w);

/**
 * Keys a fact looks others up by in a detection run, beyond its own: a claim that names nothing
 * looks for claims naming its scope's words; an assertion looks for denials of what it names and
 * a denial for assertions; a deletion request and a dependency for facts mentioning what they
 * name; a fact that announces a change for the facts that depend on what it names or mention it.
 */
export function probeKeysOf(entities: readonly FactEntity[], scope: string): string[] {
  const keys: string[] = [];
  const scopeWords = scope.toLowerCase().split(/[/_.-]+/).filter((w) => w.length >= 2);
  let changed: string[] = [];
  for (const e of entities) if (e.type === 'mentions') changed = [...(e.changed ?? []), ...(e.ended ?? []), ...(e.gone ?? [])];
  for (const e of entities) {
    if (e.type === 'claim') {
      const k = `c:${familyOf(e.kind)}:${e.measure}`;
      keys.push(`${k}#${top(scope)}`);
      if (e.anchors.length === 0 && e.components.length === 0) keys.push(...scopeWords.map((w) => `${k}@${w}`));
      // A product it states looks for the facts that said it is gone (see statements.ts, "gone, then used").
      if (e.kind === 'technology' && !e.mode) keys.push(...e.values.map((v) => `gone:${v}`));
    } else if (e.type === 'statement') {
      const other = e.positive ? 'neg' : 'pos';
      // A denial of a kind of technology ("no ORM") looks for assertions of that kind.
      const looked = e.positive ? [...e.target, ...e.subject, ...e.object] : [...e.target, ...e.target.map((w) => TECHNOLOGY_KIND_OF_WORD.get(w) ?? w)];
      keys.push(...cap(looked).filter((w) => !GENERIC.has(w)).map((w) => `${other}:${w}`));
    } else if (e.type === 'deletion' || e.type === 'dependency') {
      keys.push(...e.target.map((w) => `a:${w}`));
    } else if (e.type === 'mentions') {
      // A joined name it uses looks for the facts that said it is gone (see statements.ts, "gone, then used").
      keys.push(...cap(e.value.filter(isJoinedName)).map((v) => `gone:${v}`));
    }
  }
  // What a change is about: the facts that depend on it, and the facts that mention it (which it may update).
  const about = cap(changed.filter((w) => /[a-z]/.test(w) && !GENERIC.has(w)));
  keys.push(...about.map((w) => `dep:${w}`), ...about.map((w) => `a:${w}`));
  return [...new Set(keys)].sort();
}

/** Facts that name this value (a person, a product, an address): the key they are stored under. */
export const identityKeysOf = (entities: readonly FactEntity[]): string[] =>
  entities.flatMap((e) => (e.type === 'claim' && IDENTITIES.has(e.kind) ? e.values.map((v) => `v:${familyOf(e.kind)}:${v}`) : []));

/** Does the fact announce a change (not a plan): a cue, or a value it names as replaced or gone? */
export const announcesChange = (entities: readonly FactEntity[]): boolean =>
  entities.some((e) => (e.type === 'mentions' && (e.changed?.length ?? 0) > 0) || (e.type === 'claim' && !e.mode && (e.previous?.length ?? 0) > 0));
