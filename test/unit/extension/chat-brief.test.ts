/** `/brief`'s prompt read without a model: the scope it names and the task. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrief } from '../../../src/extension/chat/chat-parse';

test('/brief: "scope:" anywhere, or a first word that is a path, names the scope; the rest is the task', () => {
  assert.deepEqual(parseBrief(''), { task: '' });
  assert.deepEqual(parseBrief('src/auth/ add key rotation'), { scope: 'src/auth/', task: 'add key rotation' });
  assert.deepEqual(parseBrief('jwt.ts'), { scope: 'jwt.ts', task: '' });
  assert.deepEqual(parseBrief('./src/a.ts fix it'), { scope: 'src/a.ts', task: 'fix it' });
  assert.deepEqual(parseBrief('add rotation — scope: src/auth/'), { scope: 'src/auth/', task: 'add rotation' });
  assert.deepEqual(parseBrief('project overview'), { scope: 'project', task: 'overview' });
  assert.deepEqual(parseBrief('review the login flow.'), { task: 'review the login flow.' });
  assert.deepEqual(parseBrief('e.g. rotate keys'), { task: 'e.g. rotate keys' });
});
