/**
 * The credential of this tab: an account's API key or the operator's admin token, kept in
 * sessionStorage only (decisions §22), so it goes when the tab closes and is never written to disk
 * by the console itself.
 */
export type Role = 'account' | 'operator';

export interface Session {
  readonly role: Role;
  readonly secret: string;
  /** What the header shows: the account's name, or "Operator". */
  readonly label: string;
}

const KEY = 'smsgw.console.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Session>;
    if ((value.role === 'account' || value.role === 'operator') && typeof value.secret === 'string') {
      return { role: value.role, secret: value.secret, label: String(value.label ?? '') };
    }
  } catch {
    // Storage refused or a value this version cannot read: signed out.
  }
  return null;
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(KEY);
}
