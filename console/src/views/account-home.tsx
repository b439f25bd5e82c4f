import { request } from '../api.js';
import { formatNumber, formatTime } from '../format.js';
import type { OwnAccount } from '../types.js';
import { Notice, useLoad, useTitle } from '../ui.js';

/** The account's balance, senders, numbers and defaults. */
export function AccountHome({ secret }: { secret: string }) {
  useTitle('Account');
  const account = useLoad(() => request<OwnAccount>(secret, 'GET', '/v1/account'), [secret]);
  const a = account.data;
  return (
    <section aria-labelledby="account-title">
      <h1 id="account-title">Account</h1>
      {account.error && <Notice kind="error">{account.error}</Notice>}
      {a && (
        <>
          <div class="tiles">
            <div class="tile">
              <span class="tile-label">Credit balance</span>
              <span class="tile-value" data-testid="balance">
                {a.credits === null ? 'Unlimited' : formatNumber(a.credits)}
              </span>
            </div>
            <div class="tile">
              <span class="tile-label">Account</span>
              <span class="tile-value">{a.name}</span>
            </div>
          </div>
          <dl class="facts">
            <dt>accountID</dt>
            <dd>{a.accountID}</dd>
            <dt>Time zone</dt>
            <dd>{a.timezone}</dd>
            <dt>Senders</dt>
            <dd>
              {a.any_sender
                ? 'Any sender'
                : a.senders.length > 0
                  ? a.senders.join(', ')
                  : 'None validated yet'}
            </dd>
            <dt>Inbound numbers</dt>
            <dd>
              {a.numbers.length === 0
                ? 'None'
                : a.numbers.map((n) => `${n.msisdn}${n.ref ? ` (${n.ref})` : ''}`).join(', ')}
            </dd>
            <dt>Delivery reports to</dt>
            <dd class="wrap">{a.callback_url ?? 'Not set'}</dd>
            <dt>Delivery report kind</dt>
            <dd>{a.delivery_report ?? 'None'}</dd>
            <dt>Inbound messages to</dt>
            <dd class="wrap">{a.inbound_url ?? 'Not set'}</dd>
            <dt>Created</dt>
            <dd>{formatTime(a.created_at)}</dd>
          </dl>
        </>
      )}
    </section>
  );
}
