/**
 * Imported by `tracer.ts` before Powertools Tracer, which loads the X-Ray SDK: in its default mode
 * that SDK registers an async hook (cls-hooked) on load, which then runs on every promise of the
 * process, slowing each await many times over. Where the Tracer switches itself off (outside
 * Lambda: the local stack, tests, the CLI, benchmarks; under SAM; POWERTOOLS_TRACE_ENABLED=false),
 * the SDK is put in manual mode first, which registers no hook. In Lambda with tracing on, nothing
 * changes.
 */
const tracingOff =
  !process.env.AWS_EXECUTION_ENV || Boolean(process.env.AWS_SAM_LOCAL) || process.env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() === 'false';
if (tracingOff) process.env.AWS_XRAY_MANUAL_MODE ??= 'true';

export {};
