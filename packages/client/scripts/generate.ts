// `npm run generate -w @carta/client`: src/schema.ts from the committed OpenAPI document
// (docs/openapi.json). The drift test renders it the same way and compares.
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

export const DOCUMENT_URL = new URL('../../../docs/openapi.json', import.meta.url);
export const SCHEMA_URL = new URL('../src/schema.ts', import.meta.url);

export async function renderSchema(documentUrl: URL = DOCUMENT_URL): Promise<string> {
  // The parsed document, not the path: openapi-typescript would look for a redocly config
  // beside the working directory, and the output must not depend on where it runs.
  const document = JSON.parse(fs.readFileSync(documentUrl, 'utf8'));
  return `${COMMENT_HEADER}${astToString(await openapiTS(document, { silent: true }))}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  fs.writeFileSync(SCHEMA_URL, await renderSchema());
  process.stdout.write(`wrote ${SCHEMA_URL.pathname}\n`);
}
