/** The harness, as a benchmark declares itself on it (bench/harness/benchmark.ts runs the declaration). */
export * from './benchmark';
export * from './capacity';
export * from './machine';
export * from './phase';
export * from './raw';
export * from './seed';
export * from './series';
export * from './stack';
export * from './stats';
export * from './tables';
