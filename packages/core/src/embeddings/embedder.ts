/** Turns texts into vectors of the stored dimension. One model per deployment; facts record which. */
export interface Embedder {
  /** Recorded in `facts.embedding_model`; only vectors of the same model are ever compared. */
  readonly model: string;
  /**
   * How much this embedder's ranking counts beside full text's when the two are fused (1, equal
   * weight, when unset). Set from the retrieval benchmark where it was measured (docs/retrieval.md).
   */
  readonly fusionWeight?: number;
  embed(texts: string[]): Promise<number[][]>;
}

/** Cosine similarity of two L2-normalized vectors. */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}
