--[[ paper-numbers.lua: a theorem block shows the number its paper gives it, on its box and in every reference to it.

A chapter restates a paper's Lemma 5 as Lemma 5, so the block carries the paper's number as a Pandoc attribute
(tools/book/markup.py, whose offline renderer shows it):

    ::: {#lem-rmboost-5 number="5"}
    ## Strong duality of the inner maximisation [@mazuelas2025rmboost, Lemma 5]

Quarto numbers theorem blocks in reading order and has no option to give a block its number. This filter, registered
`at: pre-ast` in nbs/_quarto.yml, reads every block's `number` before Quarto sees the blocks, then:

* under Quarto: wraps Quarto's `indexAddEntry(label, parent, order, caption)` (src/resources/filters/crossref/index.lua
  in quarto-cli, 1.3 and later), through which every theorem block enters the cross-reference index with the `order`
  table that numbers it, and sets `order.order` to the paper's number. Quarto's box title, its references on the same
  page and the index it writes for a book (which numbers, after rendering, references from other chapters) all read
  that same table, so all three show the paper's number. The function is Quarto's internal one: where a Quarto lacks
  it, the filter says so on stderr and leaves Quarto's numbers.
* under plain pandoc (no Quarto): renders the blocks itself, as Quarto's HTML does: the box's title "Lemma 5 (name)"
  at the start of its first paragraph, and each `@lem-…` reference to a block of the same document as a link "Lemma 5".

What stays Quarto's: a block without `number` keeps Quarto's running count (the offline builder leaves it unnumbered);
the number is shown as written, so `crossref:`'s `*-labels` options must stay `arabic` (the default).
]]

local KINDS = {thm = "Theorem", lem = "Lemma", cor = "Corollary", prp = "Proposition", def = "Definition",
               cnj = "Conjecture", exm = "Example", exr = "Exercise", alg = "Algorithm"}

local numbers = {}   -- this document's blocks: label -> the paper's number ("5" -> 5, "2.1" stays a string)

local function kind(label)
  local k = label:match("^(%a+)%-.")
  return k and KINDS[k] and k or nil
end

local function paper_number(text)
  return text:match("^%d+$") and math.tointeger(tonumber(text)) or text
end

-- Under Quarto: the paper's number goes into the index entry Quarto numbers the block by.
local G = _G
local hooked = false
if type(G) == "table" and type(G.indexAddEntry) == "function" then
  if not G.paper_numbers_hooked then
    local index_add_entry = G.indexAddEntry
    G.indexAddEntry = function(label, parent, order, ...)
      if numbers[label] ~= nil and type(order) == "table" then order.order = numbers[label] end
      return index_add_entry(label, parent, order, ...)
    end
    G.paper_numbers_hooked = true
  end
  hooked = true
end

-- Under plain pandoc: the box's title and the references, as Quarto renders them in HTML.
local function shown(label)
  local n = numbers[label]
  return KINDS[kind(label)] .. (n ~= nil and ("\u{a0}" .. tostring(n)) or "")
end

local function render_block(div)
  local k = kind(div.identifier)
  if not k then return nil end
  local content, name = div.content, nil
  if #content > 0 and content[1].t == "Header" then
    name = content[1].content
    content:remove(1)
  elseif div.attributes.name then
    name = pandoc.Inlines(div.attributes.name)
  end
  local title = pandoc.Inlines(shown(div.identifier))
  if name then title:extend({pandoc.Space(), pandoc.Str("(")}); title:extend(name); title:insert(pandoc.Str(")")) end
  local head = pandoc.Span({pandoc.Strong(title)}, pandoc.Attr("", {"theorem-title"}))
  if #content > 0 and content[1].t == "Para" then
    content[1].content:insert(1, pandoc.Space()); content[1].content:insert(1, head)
  else
    content:insert(1, pandoc.Para({head}))
  end
  div.classes:insert("theorem")
  div.content = content
  return div
end

local function render_reference(cite)
  local links = pandoc.Inlines({})
  for i, c in ipairs(cite.citations) do
    if i > 1 then links:extend({pandoc.Str(","), pandoc.Space()}) end
    links:insert(pandoc.Link(shown(c.id), "#" .. c.id, "", pandoc.Attr("", {"quarto-xref"})))
    if #c.suffix > 0 then links:extend(c.suffix) end
  end
  return links
end

local function collect(doc)
  doc:walk({Div = function(div)
    if kind(div.identifier) and div.attributes.number then numbers[div.identifier] = paper_number(div.attributes.number) end
  end})
end

return {{
  Pandoc = function(doc)
    numbers = {}
    collect(doc)
    if hooked then return nil end  -- Quarto renders the boxes and references, with the numbers set above
    if quarto ~= nil then
      io.stderr:write("paper-numbers.lua: this Quarto has no indexAddEntry to hook: its own theorem numbers stay\n")
      return nil
    end
    local labels = {}
    doc:walk({Div = function(div) if kind(div.identifier) then labels[div.identifier] = true end end})
    return doc:walk({
      Div = render_block,
      Cite = function(cite)
        for _, c in ipairs(cite.citations) do if not labels[c.id] then return nil end end
        return render_reference(cite)
      end,
    })
  end,
}}
