/** Reads one sample from Prometheus text: the value of `name{labels}` (exactly those labels), or undefined. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (
      Object.entries(labels).every(([k, v]) => found[k] === v) &&
      Object.keys(found).length === Object.keys(labels).length
    ) {
      return Number(match[3]);
    }
  }
  return undefined;
}
