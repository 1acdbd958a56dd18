/**
 * Builds the retrieval benchmark's data file from a copy of BEAM (mohammadtavakoli78/BEAM): a bare
 * git directory (read at HEAD) or a checkout.
 *
 *   sh infra/with-node.sh node test/eval/retrieval-data.ts SOURCE [--bucket 100K] [--limit N] [--out FILE]
 *
 * Only a conversation's topic.json is read before its category is known: Coding conversations are
 * held out (see retrieval-set.ts), so their chats and questions are never opened.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { conversationFromBeam, isEligibleCategory, type Conversation, type RetrievalSet } from './retrieval-set.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    bucket: { type: 'string', default: '100K' },
    limit: { type: 'string' },
    out: { type: 'string', default: path.join(import.meta.dirname, '../data/retrieval/beam-dev.json') },
  },
});
const source = positionals[0];
if (!source) {
  process.stderr.write('usage: retrieval-data.ts SOURCE (a bare git directory of BEAM, or a checkout) [--bucket 100K] [--limit N] [--out FILE]\n');
  process.exit(2);
}

const isGitDir = fs.existsSync(path.join(source, 'HEAD')) && fs.existsSync(path.join(source, 'objects'));
const git = (...args: string[]) => execFileSync('git', ['--git-dir', source, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
/** A file of the copy, or null when it is listed but not stored (the mirror lacks some large chats). */
const read = (file: string): string | null => {
  try {
    return isGitDir ? git('show', `HEAD:${file}`) : fs.readFileSync(path.join(source, file), 'utf8');
  } catch {
    return null;
  }
};
const listed = isGitDir
  ? git('ls-tree', '-r', '--name-only', 'HEAD', `chats/${values.bucket}/`).split('\n')
  : fs.readdirSync(path.join(source, 'chats', values.bucket)).map((n) => `chats/${values.bucket}/${n}/topic.json`);
// A conversation's own topic.json sits at chats/<bucket>/<n>/ (10M chats also have one per plan).
const numbers = listed
  .map((f) => new RegExp(`^chats/${values.bucket}/(\\d+)/topic\\.json$`).exec(f)?.[1])
  .filter((n) => n !== undefined)
  .map(Number)
  .sort((a, b) => a - b);

const limit = values.limit ? Number(values.limit) : Infinity;
const conversations: Conversation[] = [];
let heldOut = 0;
for (const n of numbers) {
  if (conversations.length >= limit) break;
  const dir = `chats/${values.bucket}/${n}`;
  const category = (JSON.parse(read(`${dir}/topic.json`) ?? '{}') as { category?: unknown }).category;
  if (!isEligibleCategory(category)) {
    heldOut++;
    continue;
  }
  const chat = read(`${dir}/chat.json`);
  const questions = read(`${dir}/probing_questions/probing_questions.json`);
  if (!chat || !questions) {
    process.stderr.write(`${dir}: chat or questions not stored in this copy, skipped\n`);
    continue;
  }
  conversations.push(conversationFromBeam(`${values.bucket}/${n}`, category, JSON.parse(chat), JSON.parse(questions)));
}

const set: RetrievalSet = {
  about:
    'BEAM conversations (not Coding): the user turns with derived timestamps, and the probing questions with the user turns that answer them. Built by test/eval/retrieval-data.ts; see SOURCES.md.',
  source: { repo: 'mohammadtavakoli78/BEAM', commit: isGitDir ? git('rev-parse', 'HEAD').trim() : null, bucket: values.bucket },
  conversations,
};
fs.mkdirSync(path.dirname(values.out), { recursive: true });
// One turn or question a line: small, and a rebuild diffs line by line.
const lines = (items: unknown[]) => items.map((x) => JSON.stringify(x)).join(',\n');
const body = conversations
  .map(({ turns, questions, ...head }) => `${JSON.stringify(head).slice(0, -1)},"turns":[\n${lines(turns)}\n],"questions":[\n${lines(questions)}\n]}`)
  .join(',\n');
fs.writeFileSync(values.out, `${JSON.stringify({ about: set.about, source: set.source }).slice(0, -1)},"conversations":[\n${body}\n]}\n`);
const questions = conversations.reduce((n, c) => n + c.questions.length, 0);
const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
process.stderr.write(
  `${values.out}: ${conversations.length} conversations (${heldOut} held out as Coding, not opened), ${turns} user turns, ${questions} questions, ${(fs.statSync(values.out).size / 1024).toFixed(0)} KB\n`,
);
