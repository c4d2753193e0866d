export { PACKAGE_VERSION as VERSION } from './paths.js';
