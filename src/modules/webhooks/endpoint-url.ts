// What a webhook endpoint's URL must be when it is registered (docs/events.md). No DNS
// query is made here: a name is accepted, and delivery goes through the outbound guard
// (src/outbound/), which resolves it and checks every address at send time. A host that is an IP
// literal, or a localhost name, is judged now by the same address policy, so an endpoint that
// could only ever reach inside the network is refused up front instead of failing every delivery.
import { errors } from '../../errors.js';
import { WEBHOOK_URL_MAX_LENGTH } from '../../limits.js';
import { addressOfHost, classifyAddress } from '../../outbound/address-policy.js';
import { allowedForTests, type AllowedEndpoint } from '../../outbound/guarded-connector.js';

const refused = (rule: string) => errors.validation([`url ${rule}`]);

/**
 * The URL to store (as the WHATWG parser writes it, which is what delivery will dial), or a 400
 * `Validation failed`. https only; plain http only for a loopback endpoint SSRF_TEST_ALLOW names
 * (tests standing in for a remote receiver), which is also the only internal address let through.
 * Messages name the rule, never the value sent (docs/security.md).
 */
export function endpointUrl(raw: string, allow: readonly AllowedEndpoint[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refused('must be an absolute https URL');
  }
  if (url.username !== '' || url.password !== '') throw refused('must not carry credentials');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refused('must use https');

  const host = url.hostname.replace(/\.$/, '');
  // What the host names without DNS, decided as the connection guard decides it (address-policy.ts).
  const named = addressOfHost(host);
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const testEndpoint = named !== null && allowedForTests(allow, named, port);

  if (url.protocol === 'http:' && !testEndpoint) throw refused('must use https');
  // `https://./` parses, to a host that is only the root's dot.
  if (host === '') throw refused('must name a host');
  const internal = named !== null && !classifyAddress(named).allowed;
  if (internal && !testEndpoint) throw refused('must not point to a loopback, private, link-local or otherwise reserved address');
  if (url.href.length > WEBHOOK_URL_MAX_LENGTH) throw refused(`must be at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  return url.href;
}
