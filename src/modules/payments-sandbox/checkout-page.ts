import type { WireSession } from '../../providers/payments/wire.js';

/*
 * The sandbox's payment page: small, self-contained (no script, no outside asset), readable on a
 * phone, working with JavaScript disabled. Every interpolated value is escaped.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: unknown) => String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The page's own policy: inline styles only; forms may post here and follow our redirect anywhere. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'";

const STYLE = `body{font-family:system-ui,sans-serif;margin:0;background:#f4f6f8;color:#1c2733}
main{max-width:26rem;margin:0 auto;padding:1.5rem 1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px #0002}
.sandbox{background:#fff4d6;border:1px solid #e8c25a;border-radius:8px;padding:.5rem .75rem;font-size:.9rem}
.amount{font-size:2.2rem;font-weight:700;margin:.75rem 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem .75rem;font-size:.95rem}dt{color:#5a6b7b}dd{margin:0;word-break:break-all}
.state{font-weight:600;margin-top:1rem}.error{color:#b3261e}
form{margin-top:.75rem}button{width:100%;font-size:1.1rem;padding:.9rem;border:0;border-radius:10px;cursor:pointer}
.pay{background:#1dc8ff;color:#062a3a;font-weight:700}.fail{background:#e4e7eb;color:#1c2733}`;

const STATES: Record<string, string> = {
  complete: 'This payment is complete.',
  expired: 'This payment session has expired.',
};

export function formatAmount(amount: string, currency: string): string {
  return `${new Intl.NumberFormat('fr-FR').format(BigInt(amount))} ${currency}`;
}

export function renderCheckoutPage(session: WireSession, basePath: string, notice?: string): string {
  const open = session.checkout_status === 'open';
  const action = `${basePath}/${encodeURIComponent(session.id)}`;
  const state = open
    ? ''
    : `<p class="state">${escapeHtml(STATES[session.checkout_status] ?? session.checkout_status)}</p>`;
  const lastError =
    open && session.last_payment_error
      ? `<p class="state error">Last attempt failed: ${escapeHtml(session.last_payment_error.message)}</p>`
      : '';
  const buttons = open
    ? `<form method="post" action="${escapeHtml(`${action}/pay`)}"><button class="pay" type="submit">Pay</button></form>
<form method="post" action="${escapeHtml(`${action}/fail`)}"><button class="fail" type="submit">Fail</button></form>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Sandbox payment</title><style>${STYLE}</style></head>
<body><main><div class="card">
<p class="sandbox">Sandbox: no real money moves. Pay completes the payment, Fail declines this attempt.</p>
<div class="amount">${escapeHtml(formatAmount(session.amount, session.currency))}</div>
<dl><dt>Reference</dt><dd>${escapeHtml(session.client_reference)}</dd>
<dt>Session</dt><dd>${escapeHtml(session.id)}</dd>
<dt>${open ? 'Expires' : 'Created'}</dt><dd>${escapeHtml(open ? session.when_expires : session.when_created)}</dd>
${session.transaction_id ? `<dt>Transaction</dt><dd>${escapeHtml(session.transaction_id)}</dd>` : ''}</dl>
${notice ? `<p class="state">${escapeHtml(notice)}</p>` : ''}${state}${lastError}${buttons}
</div></main></body></html>`;
}

export function renderNotFoundPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox payment</title><style>${STYLE}</style></head><body><main><div class="card"><p class="state">No such payment session.</p></div></main></body></html>`;
}
