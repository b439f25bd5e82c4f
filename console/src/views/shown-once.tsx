import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

/** A new secret (API key) is shown once: the server keeps only its hash. */
export function ShownOnce(props: {
  title: string;
  label: string;
  secret: string;
  children?: ComponentChildren;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="notice notice-success shown-once" role="status">
      <h2>{props.title}</h2>
      <p>Its {props.label} is shown only now; copy it and keep it safe:</p>
      <p>
        <code class="secret" data-testid="shown-once">
          {props.secret}
        </code>{' '}
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(props.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : `Copy ${props.label}`}
        </button>
      </p>
      {props.children}
    </div>
  );
}
