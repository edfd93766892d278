/**
 * What a YAML bundle body may be (docs/api/bundles.md#yaml-bodies): a module of values only, so the
 * API description states them without loading the YAML parser. YAML costs far more than JSON to read
 * per byte, and some shapes (long flat maps and sequences, deep nesting, aliases) far more than a
 * bundle's, so a YAML body is bounded below the 6 MB a JSON one takes, in bytes and in structure. The
 * measurements behind each bound: bench/bundles-figures.md, "YAML bodies: the bound and the parse".
 */
export const yamlBundleLimits = {
  /** UTF-8 bytes: half as much again as the YAML export of a bot of 500 agents, the most a bundle holds. */
  bytes: 1024 * 1024,
  /** Keys and values: a little over what the densest bundle of `bytes` holds (every list full of one-letter items, flow style). */
  scalars: 200_000,
  /** Collections open inside one another; an exported bundle nests 6 deep. */
  depth: 32,
  /** Aliases (`*name`), and the nodes they may expand to (`yaml`'s `maxAliasCount`); an exported bundle has none. */
  aliases: 100,
} as const;
