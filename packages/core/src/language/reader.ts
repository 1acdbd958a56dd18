/**
 * Reading a fact's text with wink-nlp and its English model: words with lemma and part of speech, and the text cut
 * into clauses, each main or subordinate ("because we use Redis"). Chosen over compromise: about 0.08 ms a fact
 * (compromise 1.4 ms) with usable tags and lemmas, synchronous, no model download.
 */
import winkNLP, { type ItemSentence, type PartOfSpeech } from 'wink-nlp';
import model from 'wink-eng-lite-web-model';
import { SUBORDINATORS } from './lexicon.ts';

/** One word of a text. Offsets are into the text that was read. */
export interface Word {
  index: number; text: string; lower: string; lemma: string; pos: PartOfSpeech; start: number; end: number; stop: boolean;
  /** The tokens a joined word was written with ("end", "to", "end" of "end-to-end"). */
  parts?: Word[];
  /** The lowercase word before this one in its sentence, and the part of speech of the word after it. */
  previous?: string;
  nextPos?: PartOfSpeech;
}

/** A clause: a main statement, or a subordinate one introduced by `subordinator`. */
export interface Clause {
  words: Word[]; start: number; end: number;
  /** Lowercase word that introduces a subordinate clause ("because", "once", "until"); null for a main clause. */
  subordinator: string | null;
  /** Which sentence of the text it belongs to (0, 1, ...). */
  sentence: number;
}

export interface TextReading { text: string; words: Word[]; clauses: Clause[] }

type Nlp = ReturnType<typeof winkNLP>;
let instance: Nlp | undefined;
/** The highest lexeme id wink has handed out since the pipeline was built (ids are given in order), and the model's own. */
let highestId = 0;
let intrinsicSize = 0;
let pipelinesBuilt = 0;

/**
 * wink keeps every unknown word it meets (about 140 bytes each), so the pipeline is rebuilt once it has learned this
 * many (about 14 MB; a synchronous 60-200 ms). It counts words learned (ids beyond the model's), not tokens read
 * (docs/performance/2026-12-02-constants.md).
 */
const WORDS_PER_PIPELINE = 100_000;

/** The NLP pipeline, loaded on first use (about 90 ms, once per process). */
function nlp(): Nlp {
  if (!instance || highestId - intrinsicSize >= WORDS_PER_PIPELINE) {
    instance = winkNLP(model, ['sbd', 'pos']);
    intrinsicSize = Number(instance.readDoc('qzxvjkwpq').tokens().out(propertyOf(instance, 'uniqueId'))[0]);
    highestId = intrinsicSize;
    pipelinesBuilt++;
  }
  return instance;
}

/** Notes the lexeme id of a token just read (see WORDS_PER_PIPELINE). */
const noteId = (id: number) => (highestId = Math.max(highestId, id));

/** Pipelines built so far in this process, and the words the current one has learned (for tests and diagnostics). */
export function languagePipelineStats(): { built: number; learnedWords: number } {
  return { built: pipelinesBuilt, learnedWords: Math.max(0, highestId - intrinsicSize) };
}

/** One of wink's `its` property readers, by name. */
const propertyOf = (pipeline: Nlp, name: string) => (pipeline.its as unknown as Record<string, unknown>)[name] as never;

/** A function of a word with its answers remembered (a workspace's vocabulary is small beside its facts), `limit` at most. */
export function remembered<T>(limit: number, f: (word: string) => T): (word: string) => T {
  const known = new Map<string, T>();
  return (word) => {
    let found = known.get(word);
    if (found === undefined) {
      found = f(word);
      if (known.size > limit) known.clear();
      known.set(word, found);
    }
    return found;
  };
}

/** Is the lowercase word in the model's English lexicon (rather than a name or a made-up product)? */
export const isEnglishWord = remembered(50_000, (lower) => {
  const pipeline = nlp();
  const ids = pipeline.readDoc(lower).tokens().out(propertyOf(pipeline, 'uniqueId')) as unknown as number[];
  for (const id of ids) noteId(Number(id));
  // One word the model knows ("returns-api" reads as three tokens: not a word of the lexicon).
  return ids.length === 1 && Number(ids[0]) < intrinsicSize;
});

/** Whether this process has loaded the language model (for tests and diagnostics). */
export function languageModelLoaded(): boolean {
  return instance !== undefined;
}

/** Reads a text. Cheap (a fraction of a millisecond for a fact), synchronous and deterministic. */
export function readText(text: string): TextReading {
  const pipeline = nlp();
  const its = (name: string) => propertyOf(pipeline, name);
  const doc = pipeline.readDoc(text);
  // Whole columns at once: far cheaper than asking each token for each property.
  const tokens = doc.tokens();
  const texts: string[] = tokens.out();
  const lemmas = tokens.out(its('lemma')) as unknown as string[];
  const tags = tokens.out(its('pos')) as unknown as PartOfSpeech[];
  const stops = tokens.out(its('stopWordFlag')) as unknown as boolean[];
  for (const id of tokens.out(its('uniqueId')) as unknown as number[]) noteId(id);
  const words: Word[] = [];
  let cursor = 0;
  texts.forEach((raw, i) => {
    const found = text.indexOf(raw, cursor);
    const start = found >= 0 ? found : cursor;
    const end = start + raw.length;
    cursor = end;
    // An acronym is a name, not a word's short form: "CD" in "Argo CD" is not "could".
    const acronym = /^[A-Z][A-Z0-9]+$/.test(raw) && (tags[i] === 'PROPN' || tags[i] === 'NOUN');
    const lemma = acronym ? raw.toLowerCase() : String(lemmas[i]).toLowerCase();
    // The tokenizer joins a closing parenthesis and the stop after it ("(LRK-12):"): two marks, or the remark never closes.
    if (/^\)[:;,.]$/.test(raw)) {
      for (const [k, mark] of [...raw].entries()) words.push({ index: i, text: mark, lower: mark, lemma: mark, pos: 'PUNCT', start: start + k, end: start + k + 1, stop: false });
      return;
    }
    // It keeps "I'm" whole, as a name: the pronoun and "am", as it splits "we're" and "I've".
    if (/^i['’]m$/i.test(raw)) {
      words.push({ index: i, text: raw.slice(0, 1), lower: 'i', lemma: 'i', pos: 'PRON', start, end: start + 1, stop: true });
      words.push({ index: i, text: raw.slice(1), lower: raw.slice(1).toLowerCase(), lemma: 'be', pos: 'AUX', start: start + 1, end, stop: true });
      return;
    }
    words.push({ index: i, text: raw, lower: raw.toLowerCase(), lemma, pos: tags[i]!, start, end, stop: Boolean(stops[i]) });
  });
  const sentences: [number, number][] = [];
  // A sentence's span as wink reports it: its first and last token index.
  doc.sentences().each((sentence: ItemSentence) => void sentences.push(sentence.out(its('span')) as [number, number]));
  for (const [first, last] of sentences) {
    // The tagger takes a capitalised word opening a sentence for a name ("Sessions expire ..."): it is read as in lower case.
    const opening = lowerReading(words[first]!.lower);
    retag(words[first]!, opening.pos, opening.lemma);
    fixPluralVerbs(words.slice(first, last + 1));
  }
  nameCodeSpans(words);
  const merged = mergeIdentifiers(words, text);
  merged.forEach((w, i) => {
    if (i > 0) w.previous = merged[i - 1]!.lower;
    if (i + 1 < merged.length) w.nextPos = merged[i + 1]!.pos;
  });
  // Sentences by where they start; a joined word the tokenizer's sentence split cut through
  // ("bi.internal.lumen.io") keeps its sentence and the next one together.
  // So does a sentence split inside code quotes ("`?after=&limit=`").
  const inQuotes = insideQuotes(merged);
  const quoted = new Set(merged.filter((_, i) => inQuotes[i]).map((w) => w.start));
  const starts = sentences.map(([first]) => words[first]!.start).filter((start) => !merged.some((w) => w.start < start && w.end > start) && !quoted.has(start));
  const groups = new Map<number, Word[]>();
  let current = 0;
  for (const w of merged) {
    while (current + 1 < starts.length && starts[current + 1]! <= w.start) current++;
    const list = groups.get(current) ?? [];
    list.push(w);
    groups.set(current, list);
  }
  const clauses: Clause[] = [];
  let sentence = 0;
  for (const list of groups.values()) splitClauses(list, clauses, sentence++);
  clauses.sort((a, b) => a.start - b.start);
  return { text, words: merged, clauses };
}

/** For each word, whether it is inside code quotes: an odd number of backticks before it (a joined word may hold its opening one: "`.github/ci.yml"). */
function insideQuotes(words: readonly Word[]): boolean[] {
  let ticks = 0;
  return words.map((w) => {
    const inside = ticks % 2 === 1;
    ticks += w.text.split('`').length - 1;
    return inside;
  });
}

/** Reads a word as another part of speech, with this lemma. */
const retag = (w: Word, pos: PartOfSpeech, lemma: string) => Object.assign(w, { pos, lemma });

/** How the tagger reads a lower-case word alone (remembered: sentences open with the same few words). */
const lowerReading = remembered(10_000, (word): { pos: PartOfSpeech; lemma: string } => {
  const pipeline = nlp();
  const tokens = pipeline.readDoc(word).tokens();
  return { pos: (tokens.out(propertyOf(pipeline, 'pos')) as unknown as PartOfSpeech[])[0]!, lemma: String((tokens.out(propertyOf(pipeline, 'lemma')) as unknown as string[])[0]).toLowerCase() };
});

/**
 * Words between a pair of backticks are code: a command or an identifier (`run migrate`, `helm upgrade`), named, not
 * said; a verb there is no verb of the sentence.
 */
function nameCodeSpans(words: Word[]): void {
  let open = -1;
  words.forEach((w, i) => {
    if (w.text !== '`') return;
    if (open < 0) open = i;
    else {
      // Nor is a question mark there a question ("`?page=2`": a query string).
      for (const x of words.slice(open + 1, i)) if (x.pos === 'VERB' || x.pos === 'AUX' || x.text === '?') retag(x, x.text === '?' ? 'SYM' : 'X', x.lower);
      open = -1;
    }
  });
}

/**
 * The tagger confuses a plural noun with a verb in the third person ("keep application *logs* in
 * Loki", "the search API *answers* in 180 ms", "Crystal *targets* 1,200 words"). A word in -s
 * after a noun is the sentence's verb when no verb came before it and a value, a determiner or a
 * preposition follows; it is a noun when a verb came before it.
 */
function fixPluralVerbs(sentence: Word[]): void {
  let verbSeen = false;
  for (let i = 0; i < sentence.length; i++) {
    const w = sentence[i]!;
    const previous = sentence[i - 1];
    const next = sentence[i + 1];
    const afterNoun = previous !== undefined && (previous.pos === 'NOUN' || previous.pos === 'PROPN' || previous.pos === 'ADJ');
    if (/[^s]s$/.test(w.lower) && (afterNoun || i === 0) && next !== undefined) {
      // "App logs in Loki are kept ...": a later verb makes the first one a plural noun.
      const laterVerb = sentence.slice(i + 1).some((x) => x.pos === 'AUX' || x.pos === 'VERB');
      if (w.pos === 'VERB' && ((verbSeen && (next.pos === 'ADP' || next.pos === 'PUNCT' || next.pos === 'CCONJ')) || (!verbSeen && (next.pos === 'AUX' || (next.pos === 'ADP' && laterVerb))))) {
        retag(w, 'NOUN', w.lemma);
      } else if (w.pos === 'NOUN' && !verbSeen && previous !== undefined && previous.pos !== 'ADJ' && (next.pos === 'NUM' || next.pos === 'DET' || ['in', 'at', 'within', 'under', 'around', 'about'].includes(next.lower))) {
        retag(w, 'VERB', w.lemma);
      }
    }
    // A verb's base form before a noun modifies it: after a determiner ("the export pipeline"), or opening the sentence
    // with a verb still to come ("Build notifications post to #builds").
    const opensBeforeVerb = i === 0 && sentence.slice(2).some((x) => x.pos === 'VERB' || x.pos === 'AUX');
    if (w.pos === 'VERB' && w.lower === w.lemma && next?.pos === 'NOUN' && (previous?.pos === 'DET' || opensBeforeVerb)) w.pos = 'NOUN';
    // "Bump the pool to 8", "Cut the cache TTL to 60s": an imperative opening a statement with no verb of its own
    // before a target reads as a verb (the tagger takes it for a noun or an adjective).
    if (i === 0 && (w.pos === 'NOUN' || w.pos === 'ADJ') && /^[A-Z][a-z]+$/.test(w.text) && !/(?:s|ed|ing)$/.test(w.lower) && next) {
      const end = sentence.findIndex((x, k) => k > 0 && ['—', ';', ':', '.'].includes(x.text));
      const statement = sentence.slice(1, end < 0 ? undefined : end);
      const target = statement.findIndex((x) => x.lower === 'to' || x.lower === 'from');
      const opens = next.pos === 'DET' || next.pos === 'NOUN' || next.pos === 'PROPN';
      // Before a noun ("Upgrade path to v3 is documented"), only when the statement has no verb at all.
      const verbless = statement.slice(0, next.pos === 'DET' ? target : undefined).every((x) => x.pos !== 'VERB' && x.pos !== 'AUX');
      if (opens && target > 0 && verbless) retag(w, 'VERB', w.lower);
    }
    if (w.pos === 'VERB' || w.pos === 'AUX') verbSeen = true;
  }
}

/** Characters that join tokens written without spaces into one identifier ("ENABLE_BETA_SEARCH", "req/s", "#payments-eng"). */
const CONNECTORS = /^[_./:@+-]+$/;

/**
 * Words written without spaces and joined by connectors are one word: configuration keys, file
 * paths, hyphenated compounds, channel names. The tokenizer splits them; a claim reads them whole.
 */
function mergeIdentifiers(tokens: Word[], text: string): Word[] {
  // Does token k join the next, written without a space? A connector joins only a word written right after it: a
  // sentence's final period or a trailing connector is not part of a word, nor punctuation after one ("(whsec_)").
  const joins = (k: number) => {
    const [token, next, after] = [tokens[k]!, tokens[k + 1], tokens[k + 2]];
    if (next === undefined || next.start !== token.end) return false;
    return CONNECTORS.test(next.text) ? after?.start === next.end : CONNECTORS.test(token.text) && /\w/.test(next.text);
  };
  const out: Word[] = [];
  for (let i = 0; i < tokens.length; i++) {
    let j = i;
    while (joins(j)) j++;
    if (j === i) {
      out.push({ ...tokens[i]!, index: out.length });
      continue;
    }
    const run = tokens.slice(i, j + 1);
    const raw = text.slice(run[0]!.start, run.at(-1)!.end);
    const identifier = /[_.:/]/.test(raw.replace(/^#/, ''));
    const [lower, parts] = [raw.toLowerCase(), run.filter((t) => !CONNECTORS.test(t.text))];
    const pos = identifier ? 'PROPN' : (parts.at(-1) ?? run.at(-1)!).pos;
    out.push({ index: out.length, text: raw, lower, lemma: lower, pos, start: run[0]!.start, end: run.at(-1)!.end, stop: false, parts });
    i = j;
  }
  return out;
}

/**
 * Cuts a sentence into clauses at semicolons, dashes and colons between statements, at ", but" /
 * ", and <subject>" style joins, and before subordinators. A clause that begins with a
 * subordinator (or a participle after a comma: ", reflecting ...") is subordinate.
 */
function splitClauses(sentence: Word[], out: Clause[], index: number): void {
  let current: Word[] = [];
  let subordinator: string | null = null;
  // A remark in parentheses is a clause of its own; the clause it interrupts goes on after it.
  let interrupted: { words: Word[]; subordinator: string | null } | null = null;
  const flush = () => {
    const kept = current.filter((w) => w.pos !== 'PUNCT' || /[%$#@]/.test(w.text));
    if (kept.length > 0) out.push({ words: current, start: current[0]!.start, end: current.at(-1)!.end, subordinator, sentence: index });
    current = [];
    subordinator = null;
  };
  // Code quotes hold no clause boundary: "`?after=&limit=`", "`max-parallel: 4`" are a query and a key with its value.
  const inQuotes = insideQuotes(sentence);
  for (let i = 0; i < sentence.length; i++) {
    const w = sentence[i]!;
    const previous = sentence[i - 1];
    const next = sentence[i + 1];
    if (inQuotes[i] && w.text !== '`') {
      current.push(w);
      continue;
    }
    if (w.text === '(' && interrupted === null) {
      interrupted = { words: current, subordinator };
      current = [];
      subordinator = '(';
      continue;
    }
    if (w.text === ')' && interrupted !== null) {
      flush();
      ({ words: current, subordinator } = interrupted);
      interrupted = null;
      continue;
    }
    // A colon between two statements ("no Braintree integration: refunds go out as bank transfers"), not between a name and
    // its value ("TTL: 15 min"); a verb in parentheses or in a subordinate clause after it makes no statement.
    const colonJoin = w.text === ':' && current.length >= 3 && sentence.slice(i + 1).length >= 3 && statesAfterColon(sentence.slice(i + 1));
    if (colonJoin || w.text === ';' || (w.text === '—' && current.length > 2) || (w.text === '-' && w.start > 0 && previous && previous.end < w.start && next && next.start > w.end)) {
      flush();
      // After a label ("Rate limit on X: 50 requests ..."), what follows says it of the label's subject.
      if (colonJoin) subordinator = ':';
      continue;
    }
    const opensSubordinate = current.length > 0 && SUBORDINATORS.has(w.lower) && ['SCONJ', 'ADP', 'ADV', 'PRON', 'DET'].includes(w.pos) && !(w.lower === 'as' && w.pos !== 'SCONJ') &&
      // "after 3 failures": a preposition phrase, not a clause; nor is "once a day" (how often).
      !(['after', 'before', 'until', 'till', 'since'].includes(w.lower) && next && ['NUM', 'DET', 'NOUN', 'PROPN', 'ADJ'].includes(next.pos)) &&
      !(w.lower === 'once' && ['a', 'an', 'per'].includes(next?.lower ?? '') && /^(?:second|minute|hour|day|night|week|month|quarter|year)$/.test(sentence[i + 2]?.lemma ?? '')) &&
      !(w.lower === 'when' && current.length < 2) && !(w.lower === 'where' && previous?.pos !== 'PUNCT');
    // ", reflecting ...", ", tracked with ...": a participle after a comma adds a side remark.
    const participleAfterComma = previous?.text === ',' && w.pos === 'VERB' && /(?:ing|ed)$/.test(w.lower) && current.length > 3;
    const joinedStatement =
      previous?.text === ',' && (w.lower === 'but' || w.lower === 'while' || w.lower === 'whereas' || w.lower === 'and') && next !== undefined && next.pos !== 'NUM';
    // "X has a new deadline and is building a schedule": a second predicate of the same subject.
    const secondPredicate = w.lower === 'and' && current.length > 2 && next !== undefined && (next.pos === 'AUX' || (next.pos === 'VERB' && !/ing$/.test(next.lower)));
    // "Bumped X to 40 to stop timeouts in the spike": after a figure and its verb, what it is for is a clause of its own.
    // Not a capitalised word: a name ("from Go 1.20 to Go 1.22").
    const purpose = w.lower === 'to' && next?.pos === 'VERB' && next.lower === next.lemma && !/^\p{Lu}/u.test(next.text) && current.some((x) => x.pos === 'NUM') && current.some((x) => x.pos === 'VERB' || x.pos === 'AUX');
    // "X is 40, can you check it?": a question after a comma is a clause of its own, asking; what comes before states.
    const questionAfterComma = previous?.text === ',' && w.pos === 'AUX' && next?.pos === 'PRON' && current.length > 2 && sentence.at(-1)?.text === '?';
    if (questionAfterComma) flush();
    if (opensSubordinate || participleAfterComma || purpose) {
      flush();
      subordinator = participleAfterComma ? ',ing' : w.lower;
      if (participleAfterComma) current.push(w);
      continue;
    }
    // "X is now 5 and Y is the standby": a second statement with its own subject, after a complete one.
    const ownSubject = (() => {
      if (w.lower !== 'and' || secondPredicate || !current.some((x) => x.pos === 'AUX' || x.pos === 'VERB')) return false;
      const verb = sentence.slice(i + 1, i + 5).findIndex((x) => x.pos === 'AUX' || x.pos === 'VERB');
      return verb > 0 && sentence.slice(i + 1, i + 1 + verb).every((x) => ['NOUN', 'PROPN', 'DET', 'NUM', 'ADJ', 'X', 'SYM'].includes(x.pos)) && !/ing$/.test(sentence[i + 1 + verb]!.lower);
    })();
    if (ownSubject) {
      flush();
      continue;
    }
    if (secondPredicate) {
      flush();
      subordinator = 'and';
      continue;
    }
    // A comma splice (", JVM started with ...", ", refresh token TTL = 30 days"): after a part that states something (a verb,
    // a figure or an assignment; not "On Data Platform, ..."), a new subject with its own verb or assignment. A word the
    // tagger reads as a verb or an adjective opens one only before an assignment.
    const spliced =
      previous?.text === ',' &&
      current.length > 2 &&
      current.some((x) => x.pos === 'VERB' || x.pos === 'AUX' || x.pos === 'NUM' || x.text === '=') &&
      ['NOUN', 'PROPN', 'ADJ', 'VERB'].includes(w.pos) &&
      (() => {
        const at = sentence.slice(i + 1, i + 5).findIndex((x) => x.pos === 'VERB' || x.pos === 'AUX' || x.text === '=');
        const head = sentence[i + 1 + at];
        if (at < 0 || !head || /ing$/.test(head.lower) || !sentence.slice(i + 1, i + 1 + at).every((x) => x.pos === 'NOUN' || x.pos === 'PROPN' || x.pos === 'ADJ')) return false;
        return w.pos === 'NOUN' || w.pos === 'PROPN' || head.text === '=';
      })();
    if (joinedStatement || spliced || (w.lower === 'but' && current.length > 2)) {
      flush();
      continue;
    }
    current.push(w);
  }
  flush();
  // A sentence that ends inside parentheses (the tokenizer cuts "(MR !77)" at "!") still has the clause they interrupted.
  if (interrupted !== null) {
    ({ words: current, subordinator } = interrupted);
    flush();
  }
}

/** Does what follows a colon state something: a verb outside parentheses, before any subordinate clause? */
function statesAfterColon(rest: readonly Word[]): boolean {
  const words = outsideParentheses(rest);
  const end = words.findIndex((x, k) => k > 0 && SUBORDINATORS.has(x.lower) && ['SCONJ', 'ADP', 'ADV', 'PRON'].includes(x.pos));
  return words.slice(0, end < 0 ? undefined : end).some((x) => x.pos === 'VERB' || x.pos === 'AUX');
}

/** The words not inside parentheses. */
function outsideParentheses(words: readonly Word[]): Word[] {
  let depth = 0;
  return words.filter((x) => {
    if (x.text === '(') depth++;
    else if (x.text === ')') depth = Math.max(0, depth - 1);
    else return depth === 0;
    return false;
  });
}
