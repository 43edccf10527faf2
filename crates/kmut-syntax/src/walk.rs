//! Small helpers over tree-sitter nodes.

use tree_sitter::Node;

/// Preorder traversal of `node` and everything under it.
pub fn descendants(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut stack = vec![node];
    std::iter::from_fn(move || {
        let n = stack.pop()?;
        let mut cursor = n.walk();
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
        Some(n)
    })
}

/// Named children of `node`.
pub fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).collect()
}

/// The child in field `name`.
pub fn field<'t>(node: Node<'t>, name: &str) -> Option<Node<'t>> {
    node.child_by_field_name(name)
}

/// The operator token of a binary, assignment, update or unary expression.
pub fn operator(node: Node<'_>) -> Option<Node<'_>> {
    if let Some(op) = node.child_by_field_name("operator") {
        return Some(op);
    }
    // update_expression has no operator field: its anonymous `++`/`--` child is the operator.
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).find(|c| !c.is_named());
    found
}

/// The source text of `node`.
pub fn text<'s>(src: &'s str, node: Node<'_>) -> &'s str {
    &src[node.byte_range()]
}

/// Whether `node` is of kind `kind`.
pub fn kind_is(node: Node<'_>, kind: &str) -> bool {
    node.kind() == kind
}
