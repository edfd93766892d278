/**
 * Throws unless a committed file is what the code generates now: the message says what to run, then
 * the first line where the two differ.
 */
export function expectCommittedAsGenerated(committed: string, generated: string, message: string): void {
  if (committed === generated) return;
  const committedLines = committed.split('\n');
  const generatedLines = generated.split('\n');
  let line = 0;
  while (committedLines[line] === generatedLines[line]) line++;
  throw new Error(
    `${message}\n` +
      `First difference, line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n  generated: ${generatedLines[line] ?? '(end of file)'}`,
  );
}
