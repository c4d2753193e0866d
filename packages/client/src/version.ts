/** The package version, sent in User-Agent (a test keeps it equal to package.json's). */
export const CLIENT_VERSION = '0.1.0';
