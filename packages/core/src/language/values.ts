/**
 * Values typed by their shape, before any word around them is read (numbers with units, times, dates, versions, ports,
 * paths, URLs, money, channels, ...). Two facts compare canonical forms: "1 h" and "3600 s" are one value.
 */
import { FREQUENCIES, MONTHS, NUMBER_WORDS, TECHNOLOGIES, unitOf, UNIT_SPELLINGS, WEEKDAYS } from './lexicon.ts';

export type ValueKind =
  | 'duration' | 'size' | 'rate' | 'percentage' | 'count' | 'number' | 'money' | 'time' | 'weekday' | 'date'
  | 'schedule' | 'version' | 'port' | 'path' | 'url' | 'email' | 'region' | 'channel' | 'person' | 'team' | 'name'
  | 'technology' | 'boolean' | 'header' | 'machine' | 'zone';

export interface Value {
  kind: ValueKind;
  /** Canonical form, compared across facts. */
  value: string;
  /** Numbers: the magnitude in the family's base unit; ranges: their low end, with `high`. */
  number?: number;
  high?: number;
  /** As written. */
  text: string;
  start: number;
  end: number;
  /** Counts: what is counted ("replica"). Versions: what has the version ("node"). Technologies: their kind. */
  of?: string;
  /** The shape already says what it measures ("daily" is an interval). */
  measure?: string;
}

/** An HTTP client or server error's code ("429", "503"): written with a plural "s", statuses counted, not seconds. */
export const HTTP_ERROR_STATUS = /^(?:4[0-2]\d|5[01]\d)$/;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const round = (n: number) => Math.round(n * 1e9) / 1e9;
const pad = (n: number) => String(n).padStart(2, '0');
/** How often something runs, as the seconds between two runs. */
const interval = (seconds: number) => ({ kind: 'duration' as const, value: String(seconds), number: seconds, measure: 'interval' });

/**
 * The ways people write numbers, rewritten into digits the shapes read ("1,000", "2k", "half an hour", "three replicas").
 * Everything downstream reads this text, so offsets agree.
 */
export function normalizeText(content: string): string {
  const numberWord = new RegExp(String.raw`\b(${Object.keys(NUMBER_WORDS).filter((w) => !/\s|once|twice|thrice/.test(w)).join('|')})\b(?=\s+(?:[a-z-]+\s+)?[a-z]+)`, 'gi');
  return content
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    // "(Nov 30 – Dec 6): Ana" would be read as an emoticon, swallowing the closing parenthesis.
    .replace(/\)(?=[:;])/g, ') ')
    .replace(/\b(\d+(?:\.\d+)?)\s?k\b(?![\w/])/gi, (_, n: string) => String(round(Number(n) * 1000)))
    // A unit in parentheses after its figure ("CACHE_TTL=300 (seconds)") is the figure's unit.
    .replace(/(\d)\s*\(\s*([a-z]+)\s*\)/gi, (m, digit: string, unit: string) => (unitOf(unit) ? `${digit} ${unit}` : m))
    .replace(/\bhalf an? (hour|minute|day)\b/gi, (_, unit: string) => ({ hour: '30 minutes', minute: '30 seconds', day: '12 hours' })[unit.toLowerCase()]!)
    // "a quarter of an hour", "three quarters of an hour", "an hour and a half": in minutes, before "an hour" reads as 1 hour.
    .replace(/\b(a|one|three) quarters? of an? (hour|day)\b/gi, (_, n: string, unit: string) => `${(n.toLowerCase() === 'three' ? 3 : 1) * (unit.toLowerCase() === 'hour' ? 15 : 360)} minutes`)
    .replace(/\ban hour and a half\b/gi, '90 minutes')
    .replace(/\b(after|for|in|within|every|of|than|to|under|over|is|about|around|take|takes|took|keeps?|kept|retains?|holds?|lasts?)\s+an?\s+(?:full\s+|whole\s+)?(second|minute|hour|day|week|month|year)\b/gi, '$1 1 $2')
    .replace(numberWord, (w: string) => String(NUMBER_WORDS[w.toLowerCase()]));
}

const NUMBER = String.raw`(\d+(?:\.\d+)?)`;
const UNITS = UNIT_SPELLINGS.map(escape).join('|');
const DURATION_UNITS = UNIT_SPELLINGS.filter((u) => unitOf(u)?.family === 'duration').map(escape).join('|');
/** One part of a duration written in parts ("1h", "30 minutes"). */
const DURATION_PART = new RegExp(String.raw`${NUMBER}\s?(${DURATION_UNITS})`, 'gi');
const TZ = String.raw`(?:\s*(utc|gmt|z|cet|cest|eet|eest|est|edt|cst|cdt|mst|mdt|pst|pdt|pt|et|ist|jst|bst|aest|sgt))?`;
const CLOCK = String.raw`(?:([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:\s*([ap])\.?m\.?)?|(1[0-2]|0?[1-9])\s*([ap])\.?m\.?|(noon|midnight))`;
const MONTH = MONTHS.map((m) => `${m.slice(0, 3)}(?:${m.slice(3)}|\\.)?`).join('|');
const DAY = WEEKDAYS.map((d) => `${d.slice(0, 3)}(?:${d.slice(3)}s?)?`).join('|');

/** A clock time as HH:MM (24 h) from CLOCK's groups at `g` (6 groups). */
function clockOf(m: RegExpExecArray, g: number): string | null {
  if (m[g + 5]) return m[g + 5]!.toLowerCase() === 'noon' ? '12:00' : '00:00';
  const half = (m[g + 2] ?? m[g + 4])?.toLowerCase();
  let hour = Number(m[g] ?? m[g + 3]);
  if (half === 'p' && hour < 12) hour += 12;
  if (half === 'a' && hour === 12) hour = 0;
  return `${pad(hour)}:${m[g + 1] ?? '00'}`;
}

const weekday = (text: string) => WEEKDAYS.find((d) => text.toLowerCase().startsWith(d.slice(0, 3)))!;

/** A shape: a pattern and how a match becomes values (none when the match is not one after all). */
interface Shape {
  pattern: RegExp;
  read: (m: RegExpExecArray, text: string) => Omit<Value, 'text' | 'start' | 'end'> | null;
  /** The value is this group of the match (default: the whole match). */
  group?: number;
}

/** The language a toolchain file pins. */
const TOOLCHAIN_OF: Record<string, string> = { 'rust-toolchain': 'rust', channel: 'rust', '.nvmrc': 'node', '.node-version': 'node', '.python-version': 'python', python_requires: 'python', '.ruby-version': 'ruby' };

const SHAPES: Shape[] = [
  { pattern: /\b(?:https?|s3|gs|az|wss?|ftp|sftp|git|ssh|postgres(?:ql)?|redis|amqps?|mongodb(?:\+srv)?|kafka|file):\/\/[^\s)>\]"'`,;]+[^\s)>\]"'`,;.]/gi, read: (m) => ({ kind: 'url', value: m[0].toLowerCase().replace(/\/$/, '') }) },
  { pattern: /\b[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b/gi, read: (m) => ({ kind: 'email', value: m[0].toLowerCase() }) },
  // A toolchain file's version is of its language: "rust-toolchain = 1.84", ".nvmrc pins 22.11.0", "channel = \"1.82\"" in a rust-toolchain.
  {
    pattern: /(?<![\w-])(rust-toolchain|\.nvmrc|\.node-version|\.python-version|\.ruby-version|python_requires|channel)\b[^\d\n]{0,30}?(\d+\.\d+(?:\.\d+)?)(?!\w|\.\w)/gi,
    group: 2,
    read: (m, text) => (m[1]!.toLowerCase() === 'channel' && !/rust-toolchain/i.test(text) ? null : { kind: 'version', value: m[2]!, of: TOOLCHAIN_OF[m[1]!.toLowerCase()] ?? 'rust' }),
  },
  // Image tags ("postgres:16.2", "ghcr.io/acme/api:v1.4.2", "node:22-alpine"); a host and a number of three digits or more is a port.
  {
    pattern: /(?<![\w/.:-])((?:[a-z0-9.-]+\/)*([a-z][a-z0-9._-]*)):(v?\d[\w.-]*|latest|stable|lts)(?![\w:])/gi,
    read: (m) => {
      // A host name and its port ("db-7.int.example.org:3306") are read as a host and a port apart.
      if (/^\d+$/.test(m[3]!) && /^[\w-]+(?:\.[\w-]+)+$/.test(m[1]!) && /\.[a-z]{2,}$/i.test(m[1]!)) return null;
      if (/^\d+$/.test(m[3]!) && (m[3]!.length >= 3 || /^(?:localhost|\d)/.test(m[1]!))) return { kind: 'port', value: String(Number(m[3])) };
      if (/^(?:localhost|\d)/.test(m[1]!)) return null;
      return { kind: 'version', value: m[3]!.toLowerCase().replace(/^v/, '').split('-')[0]!, of: m[2]!.toLowerCase() };
    },
  },
  // Host names: where something lives ("grafana.acme.internal/d/x").
  {
    pattern: /(?<![\w@/.-])(?:[a-z0-9-]+\.)+(?:io|com|net|org|dev|app|cloud|internal|local|corp|ai|sh|co|xyz|tech|svc|lan)(?:\/[^\s,;)`'":]*[^\s,;)`'".:])?(?![\w.-]|:[^\d])/gi,
    read: (m) => (TECHNOLOGIES.word(m[0].toLowerCase()) !== undefined ? null : { kind: 'url', value: m[0].toLowerCase() }),
  },
  // Cron: five fields, one of them a star ("0 3 * * *"); a fixed daily time is a time of day.
  {
    pattern: /(?<![\w*/,-])((?:[\d*][\d*/,-]*\s+){4}[\d*][\d*/,-]*)(?![\w*/])|@(?:hourly|daily|weekly|monthly|yearly)\b/g,
    read: (m) => {
      if (m[0].startsWith('@')) return interval(FREQUENCIES[m[0].slice(1)]!);
      if (!m[0].includes('*')) return null;
      const [minute, hour, ...rest] = m[0].trim().split(/\s+/);
      if (/^\d+$/.test(minute!) && /^\d+$/.test(hour!) && rest.every((f) => f === '*')) return { kind: 'time', value: `${pad(Number(hour))}:${pad(Number(minute))}` };
      return { kind: 'schedule', value: m[0].trim().replace(/\s+/g, ' ') };
    },
  },
  // Times of day and their ranges: "09:00-17:00 UTC", "9am", "02:30 UTC", "noon".
  {
    // (A colon after it is a label's, "2:00 PM: deploy", unless a word follows it: a third field.)
    pattern: new RegExp(String.raw`(?<![\w:.])${CLOCK}(?:\s*(?:-|–|to|until)\s*${CLOCK})?${TZ}(?!\w|:\w)`, 'gi'),
    read: (m) => {
      const from = clockOf(m, 1);
      const to = m[7] || m[10] || m[12] ? clockOf(m, 7) : null;
      const zone = m[13] ? ` ${m[13].toLowerCase().replace(/^(?:gmt|z)$/, 'utc')}` : '';
      return from ? { kind: 'time', value: `${from}${to ? `-${to}` : ''}${zone}` } : null;
    },
  },
  // The time zone times are held in: UTC, or the local wall-clock time of a place ("store-local time", "timestamp without
  // time zone"). A zone after a clock is that time's (above).
  {
    pattern: /\b(?:UTC|timestamptz)\b|\b(?:[a-z]+-)?local(?:\s+wall-clock)?\s+time(?:\s*zone)?\b|\bwall-clock\s+time\b|\btimestamp\s+without\s+(?:time\s*zone|tz)\b/gi,
    read: (m) => ({ kind: 'zone', value: /^(?:utc|timestamptz)$/i.test(m[0]) ? 'utc' : 'local', measure: 'timezone' }),
  },
  // A date a version word names is that version ("API version 2023-10-16", "version pinned to 2023-10-16 → 2024-04-10"), not a
  // day; a date after a preposition is still a day ("version 3.2 on 2026-01-12").
  {
    pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/g,
    read: (m, text) => (/\bversions?\s+(?:\S+\s+){0,2}$/i.test(text.slice(Math.max(0, m.index - 40), m.index)) && !/\b(?:on|since|until|by|at|from|before|after)\s+$/i.test(text.slice(Math.max(0, m.index - 8), m.index))
      ? { kind: 'version', value: `${m[1]}-${m[2]}-${m[3]}` } : { kind: 'date', value: `${m[1]}-${m[2]}-${m[3]}` }),
  },
  // A month and day written "11-27", as logs write them: only where a date is meant (after "on", "since", "until", ...,
  // before a time of day or a label's colon), not a range ("10-12 replicas").
  {
    pattern: /(?<=\b(?:on|from|since|until|till|by|before|after|deployed|shipped|merged|ran|run)\s+)(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])\b(?![-\w%]|\.\d)|(?<![\w.:/-])(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?=:\s|\s+\d{1,2}:\d{2}\b)/g,
    read: (m) => ({ kind: 'date', value: `--${m[1] ?? m[3]}-${m[2] ?? m[4]}` }),
  },
  {
    pattern: new RegExp(String.raw`\b(?:(${MONTH})\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?|(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?(${MONTH})(?:,?\s+(\d{4}))?)\b`, 'gi'),
    read: (m) => {
      const month = MONTHS.findIndex((x) => (m[1] ?? m[5])!.toLowerCase().startsWith(x.slice(0, 3))) + 1;
      const day = Number(m[2] ?? m[4]);
      const year = m[3] ?? m[6];
      if (day < 1 || day > 31) return null;
      return { kind: 'date', value: `${year ?? '-'}-${pad(month)}-${pad(day)}` };
    },
  },
  // Weekdays and their ranges ("Mon–Fri", "Tuesdays"); "weekdays" and "weekends" too. Not the day of one event ("Tuesday's
  // deploy", "Friday's outage", "on Wed Nov 4": a date's own day), nor a named day of the trade's calendar ("Black Friday").
  {
    pattern: new RegExp(String.raw`(?<!\b(?:Black|Cyber|Good)\s)\b(${DAY})(?:\s*(?:-|–|to|through)\s*(${DAY}))?\b(?!['’]s\b)(?!,?\s+(?:(?:${MONTH})\s+\d|\d{1,2}(?:st|nd|rd|th)?\s+(?:${MONTH})\b|\d{4}-\d{2}-\d{2}|\d{2}-\d{2}\b))|\b(weekdays|weekends)\b`, 'gi'),
    read: (m) => {
      if (m[3]) return { kind: 'weekday', value: m[3].toLowerCase() === 'weekdays' ? 'monday-friday' : 'saturday-sunday' };
      // "the job sat in the queue", "the sun": a word, not a day, unless written as a day's short name ("Sat", "sat-sun").
      if (!m[2] && /^(?:sat|sun)$/.test(m[1]!)) return null;
      return { kind: 'weekday', value: m[2] ? `${weekday(m[1]!)}-${weekday(m[2])}` : weekday(m[1]!) };
    },
  },
  {
    pattern: /\b((?:us|eu|ap|sa|ca|me|af|il|mx)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)-\d|(?:us|europe|asia|australia|northamerica|southamerica|me|africa)-(?:east|west|north|south|central|northeast|southeast|northwest|southwest)\d)\b/gi,
    read: (m) => ({ kind: 'region', value: m[0].toLowerCase() }),
  },
  // Paths: API routes ("/v2/invoices", "/api/*") and files ("src/billing/retry.ts", ".github/workflows/ci.yml").
  { pattern: /(?<![\w.:/-])\/(?:[a-z0-9{}_.*:-]+\/?)*[a-z{*][a-z0-9{}_.*:-]*\/?(?![\w/])/gi, read: (m) => ({ kind: 'path', value: m[0].toLowerCase().replace(/\/$/, '') }) },
  // Relative ones end in a name, not in the sentence's full stop ("see docs/setup.md."), or in a slash: a directory
  // ("test/fixtures/", the same path as "test/fixtures"). One slash between two names is a path only in code quotes (a
  // repository, "`acme/web`"): in prose it is "and/or", "TCP/UDP".
  {
    pattern: /(?<![\w./@$€£¥₹-])(?:[.~]?[\w.-]*\/)+(?:[\w.*-]*[\w*-]\/?)?(?![\w/])/g,
    read: (m, text) => {
      const path = m[0].replace(/\/$/, '');
      const slashes = path.split('/').length - 1;
      const quoted = text[m.index - 1] === '`' && text[m.index + m[0].length] === '`';
      if (!/[\w*-]$/.test(path) || (!/\.[a-z]{1,5}$/i.test(path) && slashes < (m[0].endsWith('/') || quoted ? 1 : 2) && !/^[.~]/.test(path))) return null;
      return { kind: 'path', value: path };
    },
  },
  // Dotfiles: ".env.example", ".eslintrc.json" (".NET" is a product).
  { pattern: /(?<![\w./@-])\.[a-z][\w-]*(?:\.[a-z][\w-]*)*(?![\w/])/gi, read: (m) => (TECHNOLOGIES.word(m[0].toLowerCase()) !== undefined || /^\.[A-Z]+$/.test(m[0]) ? null : { kind: 'path', value: m[0] }) },
  // Toolchain keys and pinned packages: "python3.12", "typescript@5.4", "node20" (a known technology and its major).
  {
    pattern: /(?<![\w.@/-])([a-z][a-z.-]*?)(@|-)?(\d+(?:\.\d+)+|\d{1,2})(?![\w%/-]|\.\w)/gi,
    read: (m) => {
      const name = m[1]!.toLowerCase().replace(/[.-]$/, '');
      const known = TECHNOLOGIES.word(name);
      if (!known && (!m[3]!.includes('.') || name.length < 3)) return null;
      return { kind: 'version', value: m[3]!, of: known?.name ?? name };
    },
  },
  // A name with its version ("eta-gbm-v23", "ledger-api-v2"): that version of the name.
  { pattern: /(?<![\w/.-])([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-v(\d+(?:\.\d+)*)(?![\w.-])/gi, read: (m) => ({ kind: 'version', value: m[2]!, of: m[1]!.toLowerCase() }) },
  { pattern: /(?<![\w.-])v(\d+(?:\.\d+){0,3}(?:-[\w.]+)?)\b/g, read: (m) => ({ kind: 'version', value: m[1]!.toLowerCase() }) },
  // A managed platform's build names its product after the number ("1.27.8-gke.1067004", "1.30.5-eks-ce1d5eb"): that product's version.
  {
    pattern: /(?<![\w.])(\d+\.\d+\.\d+(?:-[\w.]+)?)(?!\w|\.\w)/g,
    read: (m) => {
      const [, number, suffix] = /^([\d.]+)-([a-z]+)/i.exec(m[1]!) ?? [];
      const product = suffix ? TECHNOLOGIES.word(suffix.toLowerCase()) : undefined;
      return product ? { kind: 'version', value: number!, of: product.name } : { kind: 'version', value: m[1]!.toLowerCase() };
    },
  },
  // Ports: "port 5432", "listens on 8080", "localhost:3000".
  { pattern: /\bports?\s*(?:is\s+|of\s+|=\s*|:\s*|number\s+|to\s+|on\s+)?(\d{2,5})\b/gi, group: 1, read: (m) => ({ kind: 'port', value: String(Number(m[1])) }) },
  { pattern: /(?<=[a-z])Ports?`?\s*(?:is\s+|=\s*|:\s*)?(\d{2,5})\b/g, group: 1, read: (m) => ({ kind: 'port', value: String(Number(m[1])) }) },
  { pattern: /\blisten(?:s|ing)?\s+on\s+(\d{2,5})\b/gi, group: 1, read: (m) => ({ kind: 'port', value: String(Number(m[1])) }) },
  { pattern: /(?:(?<=[a-z\]])|(?<=[\s`])):(\d{2,5})\b/gi, group: 1, read: (m) => ({ kind: 'port', value: String(Number(m[1])) }) },
  // Money: "$1,200", "€14.50", "120 EUR".
  {
    pattern: /(?:([$€£¥₹])\s?(\d+(?:\.\d+)?)|\b(\d+(?:\.\d+)?)\s?(usd|eur|gbp|chf|cad|aud|inr|jpy|dollars?|euros?)\b)(?:\s?(m|bn|million|billion)\b)?/gi,
    read: (m) => {
      const symbols: Record<string, string> = { $: 'usd', '€': 'eur', '£': 'gbp', '¥': 'jpy', '₹': 'inr', dollar: 'usd', dollars: 'usd', euro: 'eur', euros: 'eur' };
      const currency = (m[1] ?? m[4])!.toLowerCase();
      const scale = m[5] ? ({ m: 1e6, million: 1e6, bn: 1e9, billion: 1e9 } as Record<string, number>)[m[5].toLowerCase()]! : 1;
      const amount = round(Number(m[2] ?? m[3]) * scale);
      return { kind: 'money', value: `${amount} ${symbols[currency] ?? currency}`, number: amount };
    },
  },
  // Not after "the": "the nightly export" names which export, it says nothing of how often it runs. Nor after an amount of
  // money ("a $300 monthly credit"): the period it is counted over.
  {
    pattern: /\b(hourly|daily|nightly|weekly|biweekly|fortnightly|monthly|quarterly|yearly|annually)\b/gi,
    read: (m, text) => (/(?:\bthe|[$€£¥₹]\s?\d[\d,.]*\s?(?:k|m|bn)?|\d\s?(?:usd|eur|gbp))\s+$/i.test(text.slice(Math.max(0, m.index - 12), m.index)) ? null : interval(FREQUENCIES[m[1]!.toLowerCase()]!)),
  },
  // "every 15 minutes", "every other week", "every day".
  {
    pattern: new RegExp(String.raw`\bevery\s+(other\s+)?(?:${NUMBER}\s*)?(${UNITS})\b`, 'gi'),
    read: (m, text) => {
      // "every second Thursday", "every second week": the ordinal, every other one.
      const ordinal = m[3]!.toLowerCase() === 'second' && !m[1] && !m[2] ? new RegExp(String.raw`^\s+(?:(${DAY})\b|(${UNITS})\b)`, 'i').exec(text.slice(m.index + m[0].length)) : null;
      if (ordinal) return interval(2 * (ordinal[1] ? 7 * 86_400 : (unitOf(ordinal[2]!)?.factor ?? 0)));
      const unit = unitOf(m[3]!);
      if (unit?.family !== 'duration') return null;
      return interval(round(Number(m[2] ?? 1) * (m[1] ? 2 : 1) * unit.factor));
    },
  },
  // "twice a day", "3 times per hour": an interval.
  {
    pattern: new RegExp(String.raw`\b(once|twice|thrice|${NUMBER}\s+times)\s+(?:a|an|per|each)\s+(${UNITS})\b`, 'gi'),
    read: (m) => {
      const unit = unitOf(m[3]!);
      if (unit?.family !== 'duration') return null;
      const times = ({ once: 1, twice: 2, thrice: 3 } as Record<string, number>)[m[1]!.toLowerCase()] ?? Number(m[2]);
      return interval(round(unit.factor / times));
    },
  },
  // "60 requests per minute", "3 deploys a day": a rate of what is counted.
  {
    pattern: new RegExp(String.raw`(?<![\w.])${NUMBER}\s+([a-z]+(?:\s[a-z]+)?)(?:\s+(?:per|a|an|each)\s*|\s*\/\s*)(second|minute|hour|day|week|sec|min|hr)\b`, 'gi'),
    read: (m) => {
      const per = ({ second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400, week: 604800 } as Record<string, number>)[m[3]!.toLowerCase()]!;
      if (/^times?$/i.test(m[2]!)) return null;
      const rate = round(Number(m[1]) / per);
      return { kind: 'rate', value: String(rate), number: rate, of: m[2]!.toLowerCase().split(' ').at(-1)!.replace(/s$/, '') };
    },
  },
  // A duration written in parts, largest first ("1h30m", "3m 25s", "2 hours 15 minutes", Go's "2h45m0s"): one duration, their sum.
  {
    pattern: new RegExp(String.raw`(?<![\w.])${NUMBER}\s?(?:${DURATION_UNITS})(?:\s?(?:and\s)?${NUMBER}\s?(?:${DURATION_UNITS})){1,3}(?![\w/])`, 'gi'),
    read: (m) => {
      const parts = [...m[0].matchAll(DURATION_PART)].map((p) => ({ amount: Number(p[1]), unit: unitOf(p[2]!)! }));
      if (parts.some((p, i) => i > 0 && p.unit.factor >= parts[i - 1]!.unit.factor)) return null;
      const seconds = round(parts.reduce((sum, p) => sum + p.amount * p.unit.factor, 0));
      return { kind: 'duration' as const, value: String(seconds), number: seconds };
    },
  },
  // A sampling written as one in so many ("1-in-10", "1 in 50", "1/20 sampling"): that share.
  {
    pattern: /(?<![\w/.-])1(?:\s*in\s*|-in-|\/)(\d{1,6})(?![\w/.])/gi,
    read: (m, text) => {
      const n = Number(m[1]);
      if (n < 2 || (m[0].includes('/') && !/sampl/i.test(text.slice(Math.max(0, m.index - 40), m.index + m[0].length + 40)))) return null;
      const share = round(100 / n);
      return { kind: 'percentage', value: String(share), number: share };
    },
  },
  // Quantities with units and their ranges: "30 s", "512Mi", "2-5 minutes", "99.9%", "1000 req/s", "30-second".
  // A setting whose key names its unit ("retention.ms=259200000", "IDLE_TIMEOUT_SECONDS: 90", "timeout-minutes is 30"), also in
  // camel case ("timeoutSeconds: 5", "idleTimeoutMs=30000", a Kubernetes or JSON key): a figure in that unit.
  ...[
    /(?<![\w.-])[a-z][\w.-]*?[._-](ms|msec|s|secs?|seconds|mins|minutes|hours|hrs?|h|days|bytes|kb|mb|gb|kib|mib|gib)`?(?:\s*[=:]\s*|\s+(?:is|to|from)\s+)["'`]?(\d+(?:\.\d+)?)(?![\w.])/gi,
    /(?<![\w.-])[a-z][a-zA-Z0-9]*?[a-z0-9](Ms|Millis|Seconds|Secs|Minutes|Mins|Hours|Days|Bytes|Mb|Gb|Mib|Gib)`?(?:\s*[=:]\s*|\s+(?:is|to|from)\s+)["'`]?(\d+(?:\.\d+)?)(?![\w.])/g,
  ].map((pattern) => ({
    pattern,
    group: 2,
    read: (m: RegExpExecArray) => {
      const unit = unitOf(m[1]!.toLowerCase());
      if (!unit) return null;
      const amount = round(Number(m[2]) * unit.factor);
      return { kind: unit.family, value: String(amount), number: amount };
    },
  })),
  {
    pattern: new RegExp(String.raw`(?<![\w.])${NUMBER}(?:\s*(?:-|–|to)\s*${NUMBER})?[\s-]?(${UNITS})(?![\w/])`, 'gi'),
    read: (m, text) => {
      const unit = unitOf(m[3]!);
      if (!unit) return null;
      const low = round(Number(m[1]) * unit.factor);
      const high = m[2] ? round(Number(m[2]) * unit.factor) : undefined;
      // "503s", "429s": HTTP statuses counted, not seconds (a client or server error's code with a plural "s"); so are the
      // codes a standard's acronym names ("EDI 850s", "X12 997s").
      const code = HTTP_ERROR_STATUS.test(m[1]!) || (/^\d{3}$/.test(m[1]!) && /\b[A-Z][A-Z0-9]{1,5}\s$/.test(text.slice(Math.max(0, m.index - 8), m.index)));
      if (m[3] === 's' && !m[2] && code && !/(?:after|for|every|within|timeout|ttl|wait|interval|delay|sleep|duration|expire|backoff|period|window|lifetime|retention|=|:)\W*(?:\w+\W+)?$/i.test(text.slice(Math.max(0, m.index - 30), m.index))) return null;
      // "500m" of CPU is half a core, not 500 minutes.
      if (m[3] === 'm' && /\bcpu\b/i.test(text)) return { kind: 'count', value: String(Number(m[1]) / 1000), number: Number(m[1]) / 1000, of: 'cpu' };
      // "client_max_body_size 25m", "memory: 512m": after a size's key, "m" is megabytes.
      if (/^m$/i.test(m[3]!) && /(?:size|mem(?:ory)?|heap|disk|storage|buffer)\W{0,4}$/i.test(text.slice(Math.max(0, m.index - 12), m.index))) {
        const bytes = round(Number(m[1]) * 1e6);
        return { kind: 'size', value: String(bytes), number: bytes };
      }
      return { kind: unit.family, value: high === undefined ? String(low) : `${low}-${high}`, number: low, ...(high === undefined ? {} : { high }) };
    },
  },
  // A size tier after the word for its size: "cluster is size LARGE", "resized to X-Small"; one written with its x's anywhere ("X-Small").
  {
    pattern: /\b(?:size[ds]?|resized\s+to|scaled\s+(?:up\s+|down\s+)?to)\s+((?:x-?)*small|medium|(?:\d?x-?)*large)\b/gi,
    group: 1,
    read: (m) => ({ kind: 'machine', value: m[1]!.toLowerCase().replace(/-/g, ''), measure: 'machine_type' }),
  },
  { pattern: /(?<![\w.-])(?:\d?x-?)+(?:small|large)\b/gi, read: (m) => ({ kind: 'machine', value: m[0].toLowerCase().replace(/-/g, ''), measure: 'machine_type' }) },
  // HTTP header names: "X-Signature", "X-Hub-Signature-256", "Idempotency-Key".
  { pattern: /\b(?:X-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*|[A-Z][a-z]+(?:-[A-Z][a-z0-9]+)+)\b/g, read: (m, text) => (/^X-/.test(m[0]) || /header/i.test(text) ? { kind: 'header', value: m[0].toLowerCase(), measure: 'header' } : null) },
  // Machine types of the clouds: "c6i.2xlarge", "m7g.large", "n2-standard-8", "Standard_D4s_v5", and Cloud SQL's tiers
  // ("db-custom-4-16384", "db-g1-small").
  {
    pattern: /\b(?:[a-z]\d[a-z0-9-]*\.(?:nano|micro|small|medium|large|\d*xlarge|metal)|(?:db-)?(?:e2|[nct]2d?|[cnm][1-4]d?|t2a)-(?:standard|highmem|highcpu|micro|small|medium|custom)(?:-\d+){0,2}|db-custom-\d+-\d+|db-[fg]1-(?:micro|small)|Standard_[A-Z]\d+[a-z]*(?:_v\d)?)\b/g,
    read: (m) => ({ kind: 'machine', value: m[0].toLowerCase(), measure: 'machine_type' }),
  },
  { pattern: /(?<![\w&])#[a-z][\w-]*[a-z0-9]/gi, read: (m) => ({ kind: 'channel', value: m[0].toLowerCase() }) },
  { pattern: /(?<![\w.@/])@([a-z][\w.-]*[a-z0-9])(?![\w/@])/gi, read: (m) => ({ kind: 'person', value: m[1]!.toLowerCase() }) },
];

/** The values a (normalized) text holds by shape, in order, none overlapping an earlier shape's. */
export function valuesByShape(text: string): Value[] {
  const out: Value[] = [];
  const taken = (start: number, end: number) => out.some((v) => start < v.end && end > v.start);
  for (const shape of SHAPES) {
    shape.pattern.lastIndex = 0;
    for (let m = shape.pattern.exec(text); m; m = shape.pattern.exec(text)) {
      const whole = m[shape.group ?? 0]!;
      const start = shape.group ? m.index + m[0].lastIndexOf(whole) : m.index;
      const end = start + whole.length;
      if (taken(m.index, m.index + m[0].length)) continue;
      // "from 9:30 to 10:00", "from Tuesdays to Thursdays": a change between two values, not a range.
      const to = m[0].search(/\sto\s/i);
      if (to > 0 && /\bfrom\s+$/i.test(text.slice(Math.max(0, m.index - 8), m.index))) {
        const first = new RegExp(shape.pattern.source, shape.pattern.flags.replace('g', '')).exec(text.slice(m.index, m.index + to));
        const read = first && first.index === 0 ? shape.read(first, text) : null;
        if (read) out.push({ ...read, text: first![0], start: m.index, end: m.index + first![0].length });
        shape.pattern.lastIndex = m.index + to + 1;
        continue;
      }
      const read = shape.read(m, text);
      if (read) out.push({ ...read, text: text.slice(start, end), start, end });
    }
  }
  return out.sort((a, b) => a.start - b.start);
}
