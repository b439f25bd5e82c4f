import { useMemo, useState } from 'preact/hooks';
import { ApiError, request } from '../api.js';
import { bodyFacts, describeCharacter, recipientFacts } from '../compose.js';
import { formatNumber, localInputToIso, timeZoneName } from '../format.js';
import { navigate } from '../route.js';
import type { OwnAccount } from '../types.js';
import { DeliveryReportOptions, Field, Notice, errorText, useLoad, useTitle } from '../ui.js';

interface Draft {
  to: string;
  from: string;
  body: string;
  sendAt: string;
  ref: string;
  callbackURL: string;
  deliveryReport: string;
  paused: boolean;
}

const EMPTY: Draft = {
  to: '',
  from: '',
  body: '',
  sendAt: '',
  ref: '',
  callbackURL: '',
  deliveryReport: '',
  paused: false,
};

/** The send form: encoding, characters, parts and cost shown live, with the server's own rules. */
export function Send({ secret }: { secret: string }) {
  useTitle('Send a message');
  const account = useLoad(() => request<OwnAccount>(secret, 'GET', '/v1/account'), [secret]);
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [fieldError, setFieldError] = useState<{ field: string; text: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const facts = useMemo(() => bodyFacts(draft.body), [draft.body]);
  const recipients = useMemo(() => recipientFacts(draft.to), [draft.to]);
  const cost = facts.parts * recipients.valid.length;
  const credits = account.data?.credits ?? null;
  const senders = account.data?.senders ?? [];

  const set =
    (name: keyof Draft) => (e: { currentTarget: { value: string; checked?: boolean; type?: string } }) =>
      setDraft({
        ...draft,
        [name]:
          e.currentTarget.type === 'checkbox' ? Boolean(e.currentTarget.checked) : e.currentTarget.value,
      });
  const errorFor = (field: string) => (fieldError?.field === field ? fieldError.text : null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setFieldError(null);
    if (recipients.invalid.length > 0) {
      return setFieldError({
        field: 'to',
        text: `Not a phone number in E.164 format: ${recipients.invalid.join(', ')}`,
      });
    }
    const body = {
      to: recipients.valid,
      from: draft.from.trim(),
      body: draft.body,
      ...(draft.sendAt && { send_at: localInputToIso(draft.sendAt) }),
      ...(draft.ref.trim() && { ref: draft.ref.trim() }),
      ...(draft.callbackURL.trim() && { callbackURL: draft.callbackURL.trim() }),
      ...(draft.deliveryReport && { delivery_report: draft.deliveryReport }),
      ...(draft.paused && { paused: true }),
    };
    setBusy(true);
    try {
      const result = await request<{ messageID?: number; info?: string }>(
        secret,
        'POST',
        '/v1/sms/message',
        body,
      );
      if (result.messageID === undefined) {
        setError(result.info ?? 'The message was not sent.');
        return;
      }
      navigate(`messages/${result.messageID}`);
    } catch (e) {
      const field = e instanceof ApiError ? e.argument : null;
      if (
        field &&
        ['to', 'from', 'body', 'send_at', 'ref', 'callbackURL', 'delivery_report'].includes(field)
      ) {
        setFieldError({ field, text: errorText(e) });
      } else {
        setError(errorText(e));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="send-title">
      <h1 id="send-title">Send a message</h1>
      {account.error && <Notice kind="error">{account.error}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <form class="send-form" onSubmit={submit} noValidate>
        <div class="send-main">
          <Field
            label="Recipients"
            hint={`${recipients.valid.length} unique number${recipients.valid.length === 1 ? '' : 's'}; one per line or separated by commas, in E.164 format such as +61491570156.`}
            error={errorFor('to')}
          >
            {({ id, describedBy, invalid }) => (
              <textarea
                id={id}
                rows={3}
                value={draft.to}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                onInput={set('to')}
              />
            )}
          </Field>
          <Field
            label="Sender"
            hint={
              account.data?.any_sender
                ? 'Any sender: a phone number or a name of up to 11 letters and digits.'
                : senders.length > 0
                  ? `Validated senders: ${senders.join(', ')}`
                  : 'This account has no validated sender yet; ask the operator to add one.'
            }
            error={errorFor('from')}
          >
            {({ id, describedBy, invalid }) => (
              <>
                <input
                  id={id}
                  list={`${id}-senders`}
                  value={draft.from}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onInput={set('from')}
                />
                <datalist id={`${id}-senders`}>
                  {senders.map((s) => (
                    <option key={s} value={s} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Message" error={errorFor('body')} hint={<BodyHint facts={facts} />}>
            {({ id, describedBy, invalid }) => (
              <textarea
                id={id}
                rows={6}
                maxLength={2000}
                value={draft.body}
                aria-describedby={describedBy}
                aria-invalid={invalid}
                onInput={set('body')}
              />
            )}
          </Field>
          <details class="more-options">
            <summary>Scheduling and delivery reports</summary>
            <Field
              label="Send at"
              hint={`Your local time (${timeZoneName}); empty sends now.`}
              error={errorFor('send_at')}
            >
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  type="datetime-local"
                  step={1}
                  value={draft.sendAt}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onInput={set('sendAt')}
                />
              )}
            </Field>
            <Field
              label="Reference"
              hint="Up to 80 characters, included in delivery reports."
              error={errorFor('ref')}
            >
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  maxLength={80}
                  value={draft.ref}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onInput={set('ref')}
                />
              )}
            </Field>
            <Field
              label="Callback URL"
              hint={`Where delivery reports go; empty: ${account.data?.callback_url ?? 'the account default (none set)'}.`}
              error={errorFor('callbackURL')}
            >
              {({ id, describedBy, invalid }) => (
                <input
                  id={id}
                  type="url"
                  value={draft.callbackURL}
                  aria-describedby={describedBy}
                  aria-invalid={invalid}
                  onInput={set('callbackURL')}
                />
              )}
            </Field>
            <Field label="Delivery report" error={errorFor('delivery_report')}>
              {({ id, describedBy }) => (
                <select
                  id={id}
                  value={draft.deliveryReport}
                  aria-describedby={describedBy}
                  onChange={set('deliveryReport')}
                >
                  <DeliveryReportOptions none="Account default" />
                </select>
              )}
            </Field>
            <div class="check">
              <input id="send-paused" type="checkbox" checked={draft.paused} onChange={set('paused')} />
              <label for="send-paused">Create it paused (sent only once released)</label>
            </div>
          </details>
        </div>

        <aside class="card send-summary" aria-label="What it will cost">
          <h2>Summary</h2>
          <dl class="facts" aria-live="polite">
            <dt>Encoding</dt>
            <dd data-testid="encoding">{facts.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2'}</dd>
            <dt>Characters</dt>
            <dd data-testid="characters">{facts.characters}</dd>
            <dt>Parts</dt>
            <dd data-testid="parts">{facts.parts}</dd>
            <dt>Recipients</dt>
            <dd>{recipients.valid.length}</dd>
            <dt>Credits needed</dt>
            <dd data-testid="cost">{formatNumber(cost)}</dd>
            <dt>Balance</dt>
            <dd>{account.data ? (credits === null ? 'Unlimited' : formatNumber(credits)) : '…'}</dd>
          </dl>
          {credits !== null && cost > credits && (
            <Notice kind="error">That is more credit than the account has.</Notice>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Sending…' : draft.paused ? 'Create paused' : draft.sendAt ? 'Schedule' : 'Send'}
          </button>
        </aside>
      </form>
    </section>
  );
}

function BodyHint({ facts }: { facts: ReturnType<typeof bodyFacts> }) {
  const unit = facts.encoding === 'gsm7' ? 'septets' : 'UTF-16 units';
  return (
    <span>
      {facts.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2'}: {facts.units} {unit}, {facts.parts || 0} part
      {facts.parts === 1 ? '' : 's'} of up to {facts.perPart} {unit}; {Math.max(0, facts.remaining)} left in
      this part.
      {facts.forcing.length > 0 && (
        <span class="forcing" data-testid="forcing">
          {' '}
          These characters are not in GSM-7 and make the whole message UCS-2 (70 per part, 67 when split):{' '}
          {facts.forcing.map((c) => (
            <code key={c}>{describeCharacter(c)}</code>
          ))}
        </span>
      )}
      {facts.doubled.length > 0 && (
        <span>
          {' '}
          These count as two:{' '}
          {facts.doubled.map((c) => (
            <code key={c}>{describeCharacter(c)}</code>
          ))}
        </span>
      )}
    </span>
  );
}
