/** Turns texts into vectors of the stored dimension. One model per deployment; facts record which. */
export interface Embedder {
  /** Recorded in `facts.embedding_model`; only vectors of the same model are ever compared. */
  readonly model: string;
  embed(texts: string[]): Promise<number[][]>;
}

/** Cosine similarity of two L2-normalized vectors. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
