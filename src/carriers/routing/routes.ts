/** A route: destinations starting with `prefix` may go to `connector`. */
export interface Route {
  readonly prefix: string;
  readonly connector: string;
  /** Lower goes first; among equal priorities the longer (more specific) prefix wins. */
  readonly priority: number;
}

/** The routes that may carry `to`, in the order to try them. */
export function candidates(routes: readonly Route[], to: string): Route[] {
  return routes
    .filter((r) => to.startsWith(r.prefix))
    .sort(
      (a, b) =>
        a.priority - b.priority ||
        b.prefix.length - a.prefix.length ||
        a.connector.localeCompare(b.connector),
    );
}
