-- The bridge to the python/ package. plpython3u is untrusted: these functions are created by the
-- deploying superuser and granted to the client roles like any other function.

create function stash.python_info()
returns jsonb
language plpython3u
volatile
security invoker
as $$
import json
from stash.info import runtime_info
return json.dumps(runtime_info())
$$;
comment on function stash.python_info() is
  'Versions of the stash Python package, the embedded interpreter and its required modules (numpy, onnxruntime, tokenizers, openai) as the server sees them. Errors: the import error if the package or a module is missing from the server''s PYTHONPATH.';
grant execute on function stash.python_info() to stash_writer, stash_reader;
