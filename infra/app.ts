// Entry of `cdk synth` / `cdk deploy` (cdk.json "app"); the app itself, with cdk-nag, is built by buildApp.
import { buildApp } from './cloud/build-app';

buildApp().app.synth();
