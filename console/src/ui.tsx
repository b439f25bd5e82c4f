import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { DELIVERY_REPORTS } from './types.js';

/** On a phone, long filter forms start folded away. */
export const WIDE = typeof matchMedia === 'function' && !matchMedia('(max-width: 700px)').matches;

/** Loads data when `deps` change; `reload` fetches again. Errors are kept for the view to show. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine === generation.current) {
        setData(value);
        setError(null);
      }
    } catch (e) {
      if (mine === generation.current) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
    // The caller lists in `deps` what `load` reads.
  }, deps);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}

/** Calls `tick` every `ms` while `active`, and stops when the view goes. */
export function useInterval(tick: () => void, ms: number, active = true): void {
  const saved = useRef(tick);
  saved.current = tick;
  useEffect(() => {
    if (!active) return;
    const timer = setInterval(() => saved.current(), ms);
    return () => clearInterval(timer);
  }, [ms, active]);
}

/** Sets the page title, which screen readers announce when the view changes. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · smsgw console`;
  }, [title]);
}

export function errorText(e: unknown): string {
  return e instanceof ApiError || e instanceof Error ? e.message : String(e);
}

interface FieldProps {
  readonly label: string;
  readonly hint?: ComponentChildren;
  readonly error?: string | null | undefined;
  readonly children: (props: {
    id: string;
    describedBy: string | undefined;
    invalid: boolean;
  }) => ComponentChildren;
}

/** A labelled control with its hint and error tied to it for assistive technology. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, describedBy, invalid: Boolean(error) })}
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/** A message for the person, announced when it appears. */
export function Notice({
  kind,
  children,
}: {
  kind: 'error' | 'success' | 'info';
  children: ComponentChildren;
}) {
  return (
    <div class={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** Tables scroll sideways on a phone; the region can take focus so a keyboard can scroll it. */
export function TableRegion({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-region" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** The options of a delivery report select: `none` labels the empty choice. */
export function DeliveryReportOptions({ none }: { none: string }) {
  return (
    <>
      <option value="">{none}</option>
      {DELIVERY_REPORTS.map((r) => (
        <option key={r} value={r}>
          {r}
        </option>
      ))}
    </>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status}</span>;
}

interface PagerProps {
  readonly offset: number;
  readonly limit: number;
  readonly more: boolean;
  readonly shown: number;
  readonly onOffset: (offset: number) => void;
  readonly label: string;
}

export function Pager({ offset, limit, more, shown, onOffset, label }: PagerProps) {
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous page
      </button>
      <span>{shown === 0 ? 'None' : `${offset + 1}–${offset + shown}`}</span>
      <button type="button" disabled={!more} onClick={() => onOffset(offset + limit)}>
        Next page
      </button>
    </nav>
  );
}

/** Time since the page last refreshed itself, for views that update on their own. */
export function LiveNote({ at }: { at: number | null }) {
  return <p class="live-note">{at === null ? 'Loading…' : `Updated ${new Date(at).toLocaleTimeString()}`}</p>;
}
