import type { ApiResponse } from './http-client';

/** The standard error body (docs/api/README.md#choices-that-apply-everywhere). */
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
 * leaks a stack trace or an error's internals. Works for a Lambda result too; `expectError` is its
 * form for a response of the HTTP test client.
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

/** Asserts a response of the HTTP test client carries the standard error body with this status and code. */
export function expectError(response: ApiResponse, status: number, errorCode: string): StandardErrorBody {
  return expectErrorBody(response, { status, errorCode, path: response.path });
}

/** Asserts a 422 validation body whose `details` name exactly these fields (order ignored), and returns them. */
export function expectFieldErrors(response: ApiResponse, fields: string[]): NonNullable<StandardErrorBody['details']> {
  const body = expectError(response, 422, 'VALIDATION_FAILED');
  const details = body.details ?? [];
  for (const detail of details) {
    expect(detail).toEqual({ fieldName: expect.any(String), message: expect.any(String), errorCode: expect.any(String) });
    expect(detail.message.length).toBeGreaterThan(0);
  }
  expect(details.map((d) => d.fieldName).sort()).toEqual([...fields].sort());
  return details;
}

/** The detail of one field in a 422 body. */
export function detailOf(response: ApiResponse, fieldName: string) {
  return (response.body as StandardErrorBody).details?.find((d) => d.fieldName === fieldName);
}
