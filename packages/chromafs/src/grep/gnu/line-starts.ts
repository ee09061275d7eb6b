/** Offsets where each line of `text` starts (a last line without newline included). */
export function lineStarts(text: string): number[] {
  const starts: number[] = text === "" ? [] : [0];
  for (let at = text.indexOf("\n"); at !== -1 && at + 1 < text.length; at = text.indexOf("\n", at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

/** Where line `index` of `text` ends (before its newline), given the text's `lineStarts`. */
export function lineEnd(text: string, starts: ArrayLike<number>, index: number): number {
  if (index + 1 < starts.length) return (starts[index + 1] as number) - 1;
  return text.endsWith("\n") ? text.length - 1 : text.length;
}
