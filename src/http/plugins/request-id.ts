import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

// An inbound x-request-id is echoed when well-formed; anything else (too long, odd characters
// that could forge log lines) is replaced by a fresh id.
// An id shaped like a credential is replaced too: it would be echoed, logged and audited.
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
const CREDENTIAL_RE = /carta_(?:live|test|admin)_/i;

export function genReqId(req: IncomingMessage): string {
  const inbound = req.headers['x-request-id'];
  if (typeof inbound === 'string' && REQUEST_ID_RE.test(inbound) && !CREDENTIAL_RE.test(inbound)) return inbound;
  return randomUUID();
}
