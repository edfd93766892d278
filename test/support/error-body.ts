/** The standard error body of spec section 7. */
export interface StandardErrorBody {
  timestamp: number;
  errorCode: string;
  errorType: string;
  message: string;
  path: string;
  details?: { fieldName: string; message: string; errorCode: string }[];
}

/**
 * Asserts an answer carries the standard error body with the given status, code and path, and never
 * leaks a stack trace or an error's internals. Works for a fetched response and a Lambda result alike.
 */
export function expectErrorBody(
  answer: { status: number | undefined; contentType: string | null | undefined; text: string },
  expected: { status: number; errorCode: string; path: string },
): StandardErrorBody {
  expect({ status: answer.status, text: answer.text }).toMatchObject({ status: expected.status });
  expect(answer.contentType).toMatch(/^application\/json/);
  expect(answer.text).not.toMatch(/stack|Error:/);
  const body = JSON.parse(answer.text) as StandardErrorBody;
  expect(body).toEqual(
    expect.objectContaining({
      timestamp: expect.any(Number),
      errorCode: expected.errorCode,
      errorType: expected.status >= 500 ? 'API_ERROR' : 'USER_ERROR',
      message: expect.any(String),
      path: expected.path,
    }),
  );
  expect(Math.abs(body.timestamp - Date.now())).toBeLessThan(60_000);
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}
