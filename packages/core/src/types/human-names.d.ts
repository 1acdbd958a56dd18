declare module 'human-names' {
  /** First names by language (capitalised, e.g. "Marta"). */
  const names: Record<'allEn' | 'allIt' | 'allFr' | 'allDe' | 'allEs' | 'allNl', string[]>;
  export default names;
}
