/**
 * Vendors gitleaks' default rule list (config/gitleaks.toml, MIT) as JavaScript regular
 * expressions for the commit path's secret scanner (packages/core/src/facts/secrets.ts).
 *
 *   node infra/vendor-gitleaks-rules.ts <gitleaks.toml> <commit>
 *   (e.g. from a clone: git -C gitleaks show HEAD:config/gitleaks.toml > /tmp/gitleaks.toml)
 *
 * Writes packages/core/src/facts/gitleaks-rules.json. The rules are data, not code we maintain: to
 * follow gitleaks, rerun this script on a newer gitleaks.toml and commit the result.
 *
 * Go's RE2 syntax differs from JavaScript's where it matters here: `(?i)` may switch case
 * folding on mid-pattern and `(?-i:...)` off again, which JavaScript before Node 23 cannot say.
 * So the conversion spells case-insensitive parts out (`k` → `[kK]`, `[a-f]` → `[a-fA-F]`) and
 * emits flag-free sources that compile on every supported Node. `(?s:.)` becomes `[\s\S]`, `\z`
 * becomes `$`, POSIX classes become ranges, and literal `]`, `{`, `}` are escaped.
 *
 * One change adapts rules written for source files to prose facts, applied to every rule alike: a
 * secret may end a sentence, a parenthesis or an XML element (`... is abc123.`) where gitleaks wants
 * whitespace, a quote or `;` after it. Rules that only apply to a file path (a fact has none) are
 * left out, and so is an optional name prefix that is slow in JavaScript (see LEADING_NAME).
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseToml, TomlError, type TomlTable } from 'smol-toml';

const POSIX: Record<string, [string, string][]> = {
  alnum: [['0', '9'], ['A', 'Z'], ['a', 'z']],
  alpha: [['A', 'Z'], ['a', 'z']],
  digit: [['0', '9']],
  lower: [['a', 'z']],
  upper: [['A', 'Z']],
  xdigit: [['0', '9'], ['A', 'F'], ['a', 'f']],
};

// Inside a JavaScript character class these must be escaped; the rest may stand as they are.
const classChar = (c: string) => {
  if (c === '\t') return '\\t';
  if (c === '\n') return '\\n';
  if (c === '\r') return '\\r';
  if ('\\]^-['.includes(c)) return `\\${c}`;
  const code = c.charCodeAt(0);
  return code < 0x20 || code > 0x7e ? `\\u${code.toString(16).padStart(4, '0')}` : c;
};

/** The other-case counterparts of the letters in [lo, hi], as class ranges. */
function foldRange(lo: number, hi: number): [number, number][] {
  const out: [number, number][] = [];
  const a = 'a'.charCodeAt(0);
  const z = 'z'.charCodeAt(0);
  const A = 'A'.charCodeAt(0);
  const Z = 'Z'.charCodeAt(0);
  const lowLo = Math.max(lo, a);
  const lowHi = Math.min(hi, z);
  if (lowLo <= lowHi) out.push([lowLo - 32, lowHi - 32]);
  const upLo = Math.max(lo, A);
  const upHi = Math.min(hi, Z);
  if (upLo <= upHi) out.push([upLo + 32, upHi + 32]);
  return out;
}

/** Converts one RE2 pattern to a flag-free JavaScript regular-expression source. */
export function re2ToJs(source: string): string {
  let out = '';
  let fold = false;
  let dotAll = false;
  const saved: { fold: boolean; dotAll: boolean }[] = [];
  let i = 0;

  const escape = (inClass: boolean): { raw?: string; char?: string } => {
    const c = source[i + 1];
    if (c === undefined) throw new Error(`trailing backslash in ${source}`);
    if (c === 'x') {
      const braced = /^\\x\{([0-9a-fA-F]+)\}/.exec(source.slice(i));
      const plain = /^\\x([0-9a-fA-F]{2})/.exec(source.slice(i));
      const m = braced ?? plain;
      if (!m) throw new Error(`bad \\x escape in ${source}`);
      i += m[0].length;
      return { char: String.fromCodePoint(parseInt(m[1]!, 16)) };
    }
    i += 2;
    if ('dDwWsS'.includes(c)) return { raw: `\\${c}` };
    if (c === 'n') return { char: '\n' };
    if (c === 'r') return { char: '\r' };
    if (c === 't') return { char: '\t' };
    if (c === 'f') return { char: '\f' };
    if (c === 'v') return { char: '\v' };
    if (!inClass && (c === 'b' || c === 'B')) return { raw: `\\${c}` };
    if (!inClass && c === 'z') return { raw: '$' };
    if (!inClass && c === 'A') return { raw: '^' };
    if (/[A-Za-z0-9]/.test(c)) throw new Error(`unsupported escape \\${c} in ${source}`);
    return { char: c };
  };

  const literal = (c: string) => {
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if (fold && lower !== upper && /[a-zA-Z]/.test(c)) return `[${lower}${upper}]`;
    if (/[\\^$.|?*+()[\]{}/]/.test(c)) return `\\${c}`;
    return c === '-' ? c : classChar(c);
  };

  const characterClass = () => {
    i++; // [
    let negated = false;
    if (source[i] === '^') {
      negated = true;
      i++;
    }
    const ranges: [number, number][] = [];
    const raws: string[] = [];
    let first = true;
    while (i < source.length && (source[i] !== ']' || first)) {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(source.slice(i));
      if (posix) {
        const spans = POSIX[posix[2]!];
        if (!spans || posix[1]) throw new Error(`unsupported POSIX class ${posix[0]} in ${source}`);
        for (const [lo, hi] of spans) ranges.push([lo.charCodeAt(0), hi.charCodeAt(0)]);
        i += posix[0].length;
        continue;
      }
      let lo: string;
      if (source[i] === '\\') {
        const e = escape(true);
        if (e.raw) {
          raws.push(e.raw);
          continue;
        }
        lo = e.char!;
      } else lo = source[i++]!;
      if (source[i] === '-' && source[i + 1] !== ']' && i + 1 < source.length) {
        i++;
        let hi: string;
        if (source[i] === '\\') {
          const e = escape(true);
          if (e.raw) throw new Error(`range to a class escape in ${source}`);
          hi = e.char!;
        } else hi = source[i++]!;
        ranges.push([lo.codePointAt(0)!, hi.codePointAt(0)!]);
      } else ranges.push([lo.codePointAt(0)!, lo.codePointAt(0)!]);
    }
    if (source[i] !== ']') throw new Error(`unterminated class in ${source}`);
    i++;
    const all = fold ? [...ranges, ...ranges.flatMap(([lo, hi]) => foldRange(lo, hi))] : ranges;
    const seen = new Set<string>();
    let body = raws.join('');
    for (const [lo, hi] of all) {
      const text = lo === hi ? classChar(String.fromCodePoint(lo)) : `${classChar(String.fromCodePoint(lo))}-${classChar(String.fromCodePoint(hi))}`;
      if (seen.has(text)) continue;
      seen.add(text);
      body += text;
    }
    out += `[${negated ? '^' : ''}${body}]`;
  };

  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      const e = escape(false);
      out += e.raw ?? literal(e.char!);
    } else if (c === '[') {
      characterClass();
    } else if (c === '(') {
      const flags = /^\(\?([a-zA-Z]*)(?:-([a-zA-Z]*))?([:)])/.exec(source.slice(i));
      if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) {
        // Not RE2: lookaheads come from the prose adaptations below.
        saved.push({ fold, dotAll });
        out += source.slice(i, i + 3);
        i += 3;
        continue;
      }
      if (source[i + 1] === '?' && !flags) {
        const named = /^\(\?P?<([A-Za-z_]\w*)>/.exec(source.slice(i));
        if (!named) throw new Error(`unsupported group ${source.slice(i, i + 6)} in ${source}`);
        saved.push({ fold, dotAll });
        out += `(?<${named[1]}>`;
        i += named[0].length;
        continue;
      }
      if (flags) {
        const [all, on = '', off = '', end] = flags;
        if (/[^is]/.test(on + off)) throw new Error(`unsupported flags ${all} in ${source}`);
        if (end === ':') saved.push({ fold, dotAll });
        if (on.includes('i')) fold = true;
        if (off.includes('i')) fold = false;
        if (on.includes('s')) dotAll = true;
        if (off.includes('s')) dotAll = false;
        if (end === ':') out += '(?:';
        i += all.length;
        continue;
      }
      saved.push({ fold, dotAll });
      out += '(';
      i++;
    } else if (c === ')') {
      const state = saved.pop();
      if (!state) throw new Error(`unbalanced ) in ${source}`);
      ({ fold, dotAll } = state);
      out += ')';
      i++;
    } else if (c === '.') {
      out += dotAll ? '[\\s\\S]' : '.';
      i++;
    } else if (c === '{') {
      const repeat = /^\{\d+(?:,\d*)?\}/.exec(source.slice(i));
      out += repeat ? repeat[0] : '\\{';
      i += repeat ? repeat[0].length : 1;
    } else if (c === '}' || c === ']') {
      out += `\\${c}`;
      i++;
    } else if ('^$|?*+'.includes(c)) {
      out += c;
      i++;
    } else {
      out += literal(c);
      i++;
    }
  }
  if (saved.length) throw new Error(`unbalanced ( in ${source}`);
  return out;
}

// gitleaks' end-of-secret test (RE2, before conversion), and the same test accepting the end of a
// sentence, a closing bracket or the start of a closing tag.
const SECRET_END = String.raw`(?:[\x60'"\s;]|\\[nr]|$)`;
const PROSE_SECRET_END = String.raw`(?:[\x60'"\s;<]|[.,:!?)\]}>](?=[\x60'"\s]|$)|\\[nr]|$)`;

// `[\w.-]{0,50}?` before a rule's keyword (once, or twice around `(?i:`) only widens the reported
// match to the left. RE2 pays nothing for it; a backtracking engine pays up to 50 (or 2,500) steps
// per position, tens of milliseconds on a 4,000-character fact. No kept rule's allowlist looks at
// the whole match, so it is dropped.
const LEADING_NAME = /^(\(\?i\))?\[\\w\.-\]\{0,50\}\?(\(\?i:)?(?:\[\\w\.-\]\{0,50\}\?)?/;

const LITERAL_KEY = /^[A-Za-z0-9_-]{20,}$/;

/** One rule as Engram keeps it. */
interface VendoredRule {
  id: string;
  regex: string;
  keywords: string[];
  entropy?: number;
  secretGroup?: number;
  allowlists?: { target: 'secret' | 'match' | 'line'; regexes: string[]; stopwords: string[] }[];
}

function vendor(toml: TomlTable) {
  const rules: VendoredRule[] = [];
  const skipped: string[] = [];
  if (!Array.isArray(toml.rules) || typeof toml.allowlist !== 'object') {
    throw new Error("no [[rules]] or [allowlist] in this TOML: expected gitleaks' config/gitleaks.toml");
  }
  for (const rule of toml.rules as TomlTable[]) {
    const id = rule.id as string;
    if (rule.path !== undefined || rule.regex === undefined) {
      skipped.push(id);
      continue;
    }
    const regex = re2ToJs((rule.regex as string).replace(LEADING_NAME, '$1$2').split(SECRET_END).join(PROSE_SECRET_END));
    const allowlists = ((rule.allowlists ?? []) as TomlTable[])
      // Commit- and path-only allowlists never apply to a fact, nor do AND lists that need a path.
      .filter((a) => (a.regexes ?? a.stopwords) !== undefined && !(a.condition === 'AND' && (a.paths ?? a.commits)))
      .map((a) => {
        if (a.condition === 'AND') throw new Error(`${id}: AND allowlist without paths is not supported`);
        const target = (a.regexTarget ?? 'secret') as 'secret' | 'match' | 'line';
        // A literal example key in an allowlist (gcp-api-key lists sixteen) would put key-shaped
        // strings in Engram's repository; without it, that example is rejected like a real key.
        const regexes = ((a.regexes ?? []) as string[]).filter((r) => !LITERAL_KEY.test(r)).map(re2ToJs);
        return { target, regexes, stopwords: (a.stopwords ?? []) as string[] };
      })
      .filter((a) => a.regexes.length || a.stopwords.length);
    rules.push({
      id,
      regex,
      keywords: ((rule.keywords ?? []) as string[]).map((k) => k.toLowerCase()),
      ...(rule.entropy !== undefined ? { entropy: rule.entropy as number } : {}),
      ...(rule.secretGroup !== undefined ? { secretGroup: rule.secretGroup as number } : {}),
      ...(allowlists.length ? { allowlists } : {}),
    });
  }
  const global = toml.allowlist as TomlTable;
  return {
    rules,
    skipped,
    allowlist: { regexes: ((global.regexes ?? []) as string[]).map(re2ToJs), stopwords: (global.stopwords ?? []) as string[] },
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [tomlPath, commit] = process.argv.slice(2);
  if (!tomlPath || !commit || !/^[0-9a-f]{40}$/.test(commit)) {
    process.stderr.write('usage: node infra/vendor-gitleaks-rules.ts <gitleaks.toml> <40-hex commit>\n');
    process.exit(2);
  }
  let toml: TomlTable;
  try {
    toml = parseToml(fs.readFileSync(tomlPath, 'utf8'));
  } catch (err) {
    // smol-toml's message names the line and column and quotes the lines around them.
    if (!(err instanceof TomlError)) throw err;
    process.stderr.write(`${tomlPath} is not valid TOML (expected gitleaks' config/gitleaks.toml): ${err.message}\n`);
    process.exit(1);
  }
  const { rules, skipped, allowlist } = vendor(toml);
  for (const r of [...rules.map((r) => r.regex), ...rules.flatMap((r) => r.allowlists?.flatMap((a) => a.regexes) ?? []), ...allowlist.regexes]) {
    new RegExp(r); // throws on a source JavaScript cannot compile
  }
  const json = (v: unknown) => JSON.stringify(v);
  // JSON rather than TypeScript: Node parses it in about a millisecond, where stripping types from
  // a 70 kB module costs twenty. One rule a line keeps updates reviewable.
  const lines = [
    '{',
    `  "generatedBy": "infra/vendor-gitleaks-rules.ts; do not edit, rerun the script to update",`,
    `  "source": ${json(`https://github.com/gitleaks/gitleaks/blob/${commit}/config/gitleaks.toml`)},`,
    `  "commit": ${json(commit)},`,
    '  "license": "MIT, Copyright (c) 2019 Zachary Rice",',
    `  "conversion": ${json(
      'RE2 patterns as flag-free JavaScript sources (case-insensitive parts spelled out); a secret may end a sentence, a parenthesis or an XML element; the leading [\\w.-]{0,50}? of keyword rules is dropped',
    )},`,
    `  "leftOut": ${json(skipped)},`,
    `  "allowlist": ${json(allowlist)},`,
    '  "rules": [',
    rules.map((r) => `    ${json(r)}`).join(',\n'),
    '  ]',
    '}',
    '',
  ];
  const target = fileURLToPath(new URL('../packages/core/src/facts/gitleaks-rules.json', import.meta.url));
  fs.writeFileSync(target, lines.join('\n'));
  process.stdout.write(`${rules.length} rules written to ${target}; left out: ${skipped.join(', ')}\n`);
}
