import { readFileSync } from 'node:fs';
import { PACKAGE_JSON } from './paths.js';

const pkg = JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string };

export const VERSION: string = pkg.version;
