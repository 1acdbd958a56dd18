import { createHash } from 'node:crypto';

/**
 * The form two facts are compared in for exact duplicates (SPEC §4): lowercase, punctuation
 * stripped, whitespace collapsed. "Redis runs on port 6379." and "redis runs on port 6379" match.
 */
export function normalizeContent(content: string): string {
  return content
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** SHA-256 (hex) of the normalized content. */
export function contentHash(content: string): string {
  return createHash('sha256').update(normalizeContent(content), 'utf8').digest('hex');
}
