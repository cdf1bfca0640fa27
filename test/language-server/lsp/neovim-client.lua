-- Drives Neovim's built-in LSP client (0.7+) against the blueprint language server:
-- opens the file given in BLUEPRINT_FILE, waits for diagnostics, asks for completion at
-- BLUEPRINT_LINE/BLUEPRINT_CHARACTER (0-based) and writes what arrived to BLUEPRINT_OUT as JSON.
local file = os.getenv('BLUEPRINT_FILE')
local out = os.getenv('BLUEPRINT_OUT')
local server = os.getenv('BLUEPRINT_SERVER')
local result = { diagnostics = {}, completion = {}, errors = {} }

local function finish()
  local handle = io.open(out, 'w')
  handle:write(vim.fn.json_encode(result))
  handle:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start_client({
    name = 'blueprint',
    cmd = { 'node', server, '--stdio' },
    root_dir = vim.fn.fnamemodify(file, ':h'),
    handlers = {
      ['textDocument/publishDiagnostics'] = function(_, params)
        if params and #params.diagnostics > 0 then result.diagnostics = params.diagnostics end
      end,
    },
  })
  vim.lsp.buf_attach_client(bufnr, client_id)
  vim.wait(20000, function() return #result.diagnostics > 0 end, 50)
  local client = vim.lsp.get_client_by_id(client_id)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = tonumber(os.getenv('BLUEPRINT_LINE')), character = tonumber(os.getenv('BLUEPRINT_CHARACTER')) },
  }
  local response = client.request_sync('textDocument/completion', params, 20000, bufnr)
  if response and response.result then
    local items = response.result.items or response.result
    for _, item in ipairs(items) do table.insert(result.completion, item.label) end
  elseif response and response.err then
    table.insert(result.errors, vim.inspect(response.err))
  end
  client.stop()
end)
if not ok then table.insert(result.errors, tostring(err)) end
finish()
