/** The tool's version, sent as its User-Agent. */
export const version = '0.1.0';
