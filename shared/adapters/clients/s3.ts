import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../kernel/config';
import { lazy } from '../../kernel/lazy';
import { clientOptions, withClientPlugins } from './client-options';

// An endpoint override (the local emulator) is addressed path-style; AWS uses virtual-hosted style.
// Checksums only where S3 requires them: otherwise a presigned PUT would carry the checksum of an
// empty body, and S3 would refuse the client's file.
export const s3Client = lazy(() => {
  const endpoint = config().endpoints.s3;
  return withClientPlugins(
    new S3Client({
      ...clientOptions(endpoint),
      ...(endpoint ? { forcePathStyle: true } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
    }),
  );
});
