import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../config';
import { clientOptions, lazy } from './client-options';

// An endpoint override (the local emulator) is addressed path-style; AWS uses virtual-hosted style.
export const s3Client = lazy(() => {
  const endpoint = config().endpoints.s3;
  return new S3Client({ ...clientOptions(endpoint), ...(endpoint ? { forcePathStyle: true } : {}) });
});
