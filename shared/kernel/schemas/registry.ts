import * as z from 'zod/mini';
import './zod-messages';

/**
 * The named schemas of the API description: each is one `components.schemas` entry of the OpenAPI
 * document, referenced wherever an operation answers or takes it.
 */
export const schemaRegistry = z.registry<{ id: string }>();
