/** A realm (organization) name: lower-case letters, digits and hyphens, 2 to 63 characters. */
export const REALM_NAME = /^[a-z0-9][a-z0-9-]{1,62}$/;

/** Organization > environment > bot, and the bot's configuration resources. */
export interface Organization {
  uuid: string;
  name: string;
  createdAt: string;
}

export interface Environment {
  uuid: string;
  orgUuid: string;
  name: string;
  active: boolean;
  createdAt: string;
}

export interface Bot {
  uuid: string;
  orgUuid: string;
  envUuid: string;
  name: string;
  active: boolean;
  createdAt: string;
}

export const communicationStyles = [
  'POLITE_AND_PERSUASIVE',
  'WITTY_AND_CASUAL',
  'EMPATHETIC_AND_HELPFUL',
  'CONCISE_AND_PROFESSIONAL',
  'FRIENDLY_AND_APPROACHABLE',
] as const;
export type CommunicationStyle = (typeof communicationStyles)[number];

export interface Persona {
  uuid: string;
  botUuid: string;
  name: string;
  image?: string;
  backstory?: string;
  personality?: string;
  communicationStyle: CommunicationStyle;
}

export interface BotFunction {
  uuid: string;
  botUuid: string;
  name: string;
}

export interface Collection {
  uuid: string;
  botUuid: string;
  name: string;
  description: string;
  documentCount: number;
  searchType: { type: string; semanticWeight: number; fullTextWeight: number };
  previousUserInput: number;
  threshold: number;
  topK: number;
}

export interface Tag {
  uuid: string;
  name: string;
}
