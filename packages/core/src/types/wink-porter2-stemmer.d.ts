declare module 'wink-porter2-stemmer' {
  /** The Porter2 stem of a lowercase English word. */
  export default function stem(word: string): string;
}
